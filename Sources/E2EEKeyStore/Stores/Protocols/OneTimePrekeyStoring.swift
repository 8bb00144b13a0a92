import GRDB

/// One-time prekeys. Every method runs in the caller's transaction; ``OneTimePrekeyStore`` is
/// the SQLite implementation.
package protocol OneTimePrekeyStoring: Sendable {
    /// Takes the next ids from the persisted counter. - Throws: ``KeyStoreError/invalidArgument(_:)``.
    func reserveIDs(count: Int, _ db: Database) throws -> [UInt32]
    /// Stores a new prekey, pending upload. - Throws: database errors.
    func storeOneTimePrekey(id: UInt32, material: OneTimePrekeyMaterial, at time: StoreTime, _ db: Database) throws
    /// The prekey with `id`, in any state. - Throws: store or database errors.
    func loadOneTimePrekey(id: UInt32, _ db: Database) throws -> OneTimePrekey?
    /// Marks prekeys published. - Throws: database errors.
    func markPublished(ids: [UInt32], _ db: Database) throws
    /// Marks a prekey consumed. - Throws: ``KeyStoreError/missingRecord(_:id:)``.
    func consume(id: UInt32, at time: StoreTime, _ db: Database) throws
    /// Wipes prekeys consumed before `cutoff`; returns how many. - Throws: database errors.
    func removeConsumed(before cutoff: StoreTime, _ db: Database) throws -> Int
}

extension OneTimePrekeyStore: OneTimePrekeyStoring {}
