import GRDB

/// Signed prekeys and accepted X3DH ephemeral keys. Every method runs in the caller's
/// transaction; ``SignedPrekeyStore`` is the SQLite implementation.
package protocol SignedPrekeyStoring: Sendable {
    /// The prekey with `id`. - Throws: store or database errors.
    func loadSignedPrekey(id: UInt32, _ db: Database) throws -> SignedPrekey?
    /// The current prekey. - Throws: store or database errors.
    func loadCurrentSignedPrekey(_ db: Database) throws -> SignedPrekey?
    /// Makes a prekey current, retiring the previous one. - Throws: ``KeyStoreError/invalidTransition(_:id:from:to:)``.
    func storeCurrentSignedPrekey(_ prekey: SignedPrekey, _ db: Database) throws
    /// Wipes a previous prekey and its accepted ephemeral keys. - Throws: ``KeyStoreError/invalidTransition(_:id:from:to:)``.
    func removeSignedPrekey(id: UInt32, _ db: Database) throws
    /// Whether `EK_A` was already accepted. - Throws: database errors.
    func isEphemeralKeyAccepted(_ ephemeralPublic: [UInt8], _ db: Database) throws -> Bool
    /// Records an accepted `EK_A`. - Throws: ``KeyStoreError/invalidTransition(_:id:from:to:)`` for a replay.
    func acceptEphemeralKey(_ ephemeralPublic: [UInt8], signedPrekeyID: UInt32, at time: StoreTime, _ db: Database) throws
}

extension SignedPrekeyStore: SignedPrekeyStoring {}
