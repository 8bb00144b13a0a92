import E2EECrypto
import GRDB

/// This device's sender keys. Every method runs in the caller's transaction;
/// ``OwnSenderKeyStore`` is the SQLite implementation.
package protocol OwnSenderKeyStoring: Sendable {
    /// The channel's current key. - Throws: store or database errors.
    func loadCurrentSenderKey(channelID: String, _ db: Database) throws -> OwnSenderKey?
    /// Makes a new key current. - Throws: database errors.
    func storeNewSenderKey(_ key: OwnSenderKey, _ db: Database) throws
    /// Stores the advanced state. - Throws: ``KeyStoreError/missingRecord(_:id:)``.
    func storeAdvancedSenderKey(channelID: String, keyID: UInt32, state: SecretBytes, messages: Int, _ db: Database) throws
    /// Removes retired keys. - Throws: database errors.
    func removeRetiredSenderKeys(channelID: String, _ db: Database) throws
}

extension OwnSenderKeyStore: OwnSenderKeyStoring {}
