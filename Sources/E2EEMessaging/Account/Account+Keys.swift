import E2EECrypto
import E2EEKeyStore

extension Account {
    /// Generates what is missing — signed prekey, one-time prekeys up to `oneTimePrekeys` — stores
    /// it (pending), uploads the bundle and marks it published. Idempotent: when everything is in
    /// place locally and the server holds our identity, it changes nothing and says so.
    /// - Throws: ``ServerError``, key store errors.
    public func bootstrapKeys(oneTimePrekeys: Int? = nil) async throws -> KeyBootstrapResult {
        let result = try await keys.bootstrap(oneTimePrekeys: oneTimePrekeys ?? configuration.oneTimePrekeyTarget)
        try await rememberOwnDevicesAtRegistration()
        if case .uploaded(let count) = result {
            broadcaster.publish(.keyMaintenance(KeyMaintenanceReport(oneTimePrekeysUploaded: count, signedPrekeyRotated: false)))
        }
        return result
    }

    /// Tops the one-time prekeys up to `target` (docs/spec/sync.md: on `keys.low_otp` for this device, or
    /// when fewer than 10 are left locally). Returns how many were uploaded.
    /// - Throws: ``ServerError``, key store errors.
    @discardableResult
    public func replenishOneTimePrekeys(target: Int? = nil, serverRemaining: Int? = nil) async throws -> Int {
        let (uploaded, serverCount) = try await keys.replenish(target: target ?? configuration.oneTimePrekeyTarget, serverRemaining: serverRemaining)
        if uploaded > 0 {
            broadcaster.publish(.keyMaintenance(KeyMaintenanceReport(oneTimePrekeysUploaded: uploaded, signedPrekeyRotated: false,
                                                                     serverCountBefore: serverRemaining, serverCountAfter: serverCount)))
        }
        return uploaded
    }

    /// Whether fewer than 10 unconsumed one-time prekeys are left locally.
    public func oneTimePrekeysAreLow() async throws -> Bool {
        try await keys.isLow()
    }

    /// Replaces the signed prekey when it is older than 7 days, or now with `force`; the old one
    /// is retained (prekey messages naming it still work) and the bundle is uploaded. Returns
    /// whether it rotated.
    /// - Throws: ``ServerError``, key store errors.
    @discardableResult
    public func rotateSignedPrekey(force: Bool = false) async throws -> Bool {
        let rotated = try await keys.rotateSignedPrekeyIfDue(force: force)
        if rotated {
            broadcaster.publish(.keyMaintenance(KeyMaintenanceReport(oneTimePrekeysUploaded: 0, signedPrekeyRotated: true)))
        }
        return rotated
    }

    /// Local and server counts, signed prekey age and our identity fingerprint.
    /// - Throws: key store errors (a server that cannot be asked leaves its count `nil`).
    public func keyStatus() async throws -> KeyStatus {
        let serverCount = try? await api.bundle(deviceID: deviceID).oneTimePreKeyCount
        var status = try await keys.status(serverCount: serverCount)
        status.identityFingerprint = try SafetyNumber.fingerprint(userID: userID.rawValue, identityBlobs: [identity.bytes])
        return status
    }

    /// The trusted devices of `userID` as the server lists them now (new ones are pinned and
    /// reported; changed identities are reported and left out).
    /// - Throws: ``ServerError``.
    public func devices(of userID: UserID) async throws -> [RemoteDevice] {
        try await directory.devices(of: userID, refresh: true)
    }

    /// Identity changes recorded for `userID` (docs/spec/protocol.md §7), oldest first.
    /// - Throws: key store errors.
    public func identityChanges(of userID: UserID) async throws -> [IdentityKeyChange] {
        try await store.read { [store] db in try store.remoteIdentityStore.loadIdentityChanges(userID: userID.rawValue, db) }.map(IdentityKeyChange.init)
    }
}
