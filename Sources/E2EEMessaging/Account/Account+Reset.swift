import E2EECrypto
@_spi(StoreInternals) import E2EEKeyStore

extension Account {
    /// Resets our user key on this device (docs/spec/protocol.md §10.16), the primary lost: the
    /// `lost` devices are deleted on the server first (`DELETE /devices/{id}`, never
    /// `logout-all`, which would end this device's own login; one already gone counts as
    /// deleted), then this device creates a new key and primary file, certifies itself at epoch
    /// 1 and republishes — it is the primary from then on. Our other devices link to it again
    /// (``startLinking()``) without logging in again. Contacts see a new key (§10.17). The user
    /// changes the password outside the core.
    /// - Throws: ``MessagingError/invalidMessage(_:)`` (this device among `lost`), ``ServerError``
    ///   (a delete failed: nothing else done), ``MessagingError/primaryFileUnprotected``,
    ///   ``MessagingError/clockNotConfirmed``, `PrimaryFileError`, key store errors.
    public func resetUserKey(removing lost: [DeviceID] = []) async throws {
        guard !lost.contains(deviceID) else { throw MessagingError.invalidMessage("a reset cannot remove the device it runs on") }
        for device in lost {
            do {
                try await api.deleteDevice(id: device)
            } catch ServerError.notFound {
                // Gone already.
            }
        }
        let issuer = primaryIssuer, removed = lost.map(\.rawValue)
        try await locks.withLock(Self.issuingLock) { try await issuer.reset(removing: removed) }
        await directory.invalidate()
    }

    /// On the primary, the user confirms a reset made on another device (docs/spec/protocol.md
    /// §10.12): this device stops issuing for good (``IssuingStopReason/resetElsewhere``),
    /// surfaced once; it stays linked at contacts until its certificate ends, and links to the
    /// new primary like any other device.
    /// - Throws: ``MessagingError/notPrimary``, key store errors.
    public func stopIssuing() async throws {
        let issuer = primaryIssuer
        try await locks.withLock(Self.issuingLock) { try await issuer.stopIssuing() }
    }
}
