import E2EECrypto
@_spi(StoreInternals) import E2EEKeyStore

extension Account {
    /// Removes our own device `deviceID` (docs/spec/protocol.md §10.14), on the primary only.
    /// One save of the primary file raises the epoch, drops the device from the kept set for
    /// good (its grants are void: a late acknowledgement keeps nothing), and issues this device
    /// and every kept device a new certificate at the new epoch, all logged. Then, in order:
    /// this device's record is republished (its epoch alone unlinks the removed device wherever
    /// it is read), `DELETE /devices/{id}` ends the device's logins, and each kept device is sent
    /// its new certificate in a `recert`. A step that fails (the server unreachable) is resumed
    /// at the next start-up or renewal, and before another removal, until done.
    /// - Throws: ``MessagingError/notPrimary`` (this device does not hold the user key),
    ///   ``MessagingError/invalidMessage(_:)`` (this device itself),
    ///   ``MessagingError/issuingStopped(_:)``, ``MessagingError/clockNotConfirmed``,
    ///   ``MessagingError/primaryFileUnprotected``, `PrimaryFileError`, ``ServerError`` (the
    ///   removal is saved and resumes later), key store errors.
    public func removeDevice(_ deviceID: DeviceID) async throws {
        let issuer = primaryIssuer
        guard let record = try await issuer.loadRecord(), record.role == .primary else { throw MessagingError.notPrimary }
        guard deviceID != self.deviceID else { throw MessagingError.invalidMessage("the primary cannot remove itself") }
        let removed = try WireUUID(text: deviceID.rawValue)
        if issuer.removalInProgress() != nil { try await resumeRemoval() }
        try await locks.withLock(Self.issuingLock) { try await issuer.saveRemoval(of: removed) }
        #if DEBUG
        configuration.testCrash(at: .primaryFileSaved)
        #endif
        try await resumeRemoval()
    }

    /// Carries the removal the primary file holds in progress to its end, step by step, each
    /// step recorded in the file once done (§10.14).
    /// - Throws: ``ServerError`` (a step is left for the next run), `PrimaryFileError`, key store errors.
    func resumeRemoval() async throws {
        let issuer = primaryIssuer
        while let removal = issuer.removalInProgress() {
            switch removal.stage {
            case .republish:
                // The own record first: the new epoch unlinks the removed device wherever it is read.
                let certificate = try await store.read { [store] db in try store.ownUserKeyStore.load(db) }?.certificate
                if let bytes = certificate, let parsed = try? DeviceCertificate(bytes: bytes) {
                    do {
                        try await keys.publish(certificate: parsed)
                    } catch MessagingError.keysNotBootstrapped {
                        // Nothing published yet: the bootstrap publishes it.
                    }
                }
                await directory.invalidate()
                try issuer.advanceRemoval(to: .deleteDevice)
            case .deleteDevice:
                do {
                    try await api.deleteDevice(id: DeviceID(removal.deviceID))
                } catch ServerError.notFound {
                    // Gone already.
                }
                await directory.invalidate()
                try issuer.advanceRemoval(to: .recerts)
            case .recerts:
                let orders = try issuer.keptRecerts()
                if !orders.isEmpty, let channel = try await devicesChannel(create: true) {
                    for order in orders { try? await send(order, in: channel) }
                }
                try issuer.advanceRemoval(to: nil)
            }
        }
    }
}
