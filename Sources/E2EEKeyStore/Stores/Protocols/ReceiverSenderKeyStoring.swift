import E2EECrypto
import GRDB

/// Receiving sender-key states and their skipped keys. Every method runs in the caller's
/// transaction; ``ReceiverSenderKeyStore`` is the SQLite implementation.
package protocol ReceiverSenderKeyStoring: Sendable {
    /// The state at `address`. - Throws: store or database errors.
    func loadReceiverSenderKey(_ address: SenderKeyAddress, _ db: Database) throws -> ReceiverSenderKey?
    /// Inserts or replaces a state. - Throws: database errors.
    func storeReceiverSenderKey(_ key: ReceiverSenderKey, _ db: Database) throws
    /// Removes a state and its skipped keys. - Throws: database errors.
    func removeReceiverSenderKey(_ address: SenderKeyAddress, _ db: Database) throws
    /// A kept skipped key. - Throws: store or database errors.
    func loadSkippedKey(_ address: SenderKeyAddress, iteration: UInt32, _ db: Database) throws -> SkippedSenderKey?
    /// Stores skipped keys. - Throws: database errors.
    func storeSkippedKeys(_ keys: [SkippedSenderKey], at time: StoreTime, _ db: Database) throws
    /// Deletes a used skipped key. - Throws: database errors.
    func removeSkippedKey(_ address: SenderKeyAddress, iteration: UInt32, _ db: Database) throws
}

extension ReceiverSenderKeyStore: ReceiverSenderKeyStoring {}
