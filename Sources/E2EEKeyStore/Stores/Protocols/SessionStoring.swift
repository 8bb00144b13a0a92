import E2EECrypto
import GRDB

/// Pairwise sessions, libsignal-style. Every method runs in the caller's transaction, so one
/// decryption is one `write { db in … }`. ``SessionStore`` is the SQLite implementation; a test
/// can substitute one that fails on purpose.
package protocol SessionStoring: Sendable {
    /// The device's current session. - Throws: store or database errors.
    func loadCurrentSession(userID: String, deviceID: String, _ db: Database) throws -> StoredSession?
    /// The device's sessions, current first. - Throws: store or database errors.
    func loadSessions(userID: String, deviceID: String, _ db: Database) throws -> [StoredSession]
    /// Installs a new current session, archiving the old one; returns its id. - Throws: database errors.
    func installSession(userID: String, deviceID: String, state: SecretBytes, id: String, at time: StoreTime, _ db: Database) throws -> String
    /// Stores a device's sessions after an encryption or decryption. - Throws: database errors.
    func storeUpdate(_ update: SessionUpdate, at time: StoreTime, _ db: Database) throws
    /// Removes every session with the device. - Throws: database errors.
    func removeSessions(userID: String, deviceID: String, _ db: Database) throws
}

extension SessionStore: SessionStoring {}
