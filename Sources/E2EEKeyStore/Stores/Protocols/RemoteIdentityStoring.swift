import GRDB

/// Pinned remote identities (trust on first use). Every method runs in the caller's
/// transaction; ``RemoteIdentityStore`` is the SQLite implementation.
package protocol RemoteIdentityStoring: Sendable {
    /// The pin for a device. - Throws: store or database errors.
    func loadIdentity(userID: String, deviceID: String, _ db: Database) throws -> RemoteIdentity?
    /// Pins, confirms, or records a change. - Throws: store or database errors.
    func recordIdentity(userID: String, deviceID: String, identityBlob: [UInt8], at time: StoreTime, _ db: Database) throws -> IdentityRecordResult
    /// Accepts a recorded change. - Throws: ``KeyStoreError/missingRecord(_:id:)``.
    func acceptIdentityChange(id: Int64, at time: StoreTime, _ db: Database) throws
    /// Sets the verification state. - Throws: ``KeyStoreError/missingRecord(_:id:)``.
    func setVerification(_ state: VerificationState, userID: String, deviceID: String, _ db: Database) throws
}

extension RemoteIdentityStore: RemoteIdentityStoring {}
