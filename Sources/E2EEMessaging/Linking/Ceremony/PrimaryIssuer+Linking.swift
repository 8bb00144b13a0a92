import E2EECrypto
@_spi(StoreInternals) import E2EEKeyStore

extension PrimaryIssuer {
    /// Issues the certificate of a grant (docs/spec/protocol.md §10.11 step 5, §10.12): for the
    /// device `party` of our user, at the file's epoch, valid 30 days, logged in the file and the
    /// file saved — and the store's mirror following — before the caller sends it.
    /// - Throws: ``MessagingError/notPrimary``, ``MessagingError/issuingStopped(_:)``,
    ///   ``MessagingError/clockNotConfirmed``, ``MessagingError/primaryFileUnprotected``,
    ///   ``PrimaryFileError``, key store errors.
    func issueGrantCertificate(for party: LinkParty) async throws -> DeviceCertificate {
        guard var record = try await loadRecord(), record.role == .primary else { throw MessagingError.notPrimary }
        if let stop = record.issuingStopped { throw MessagingError.issuingStopped(IssuingStopReason(stop)) }
        let (clock, _) = try await advanceClock()
        if clock.readings.wentBack || clock.readings.suspect { throw MessagingError.clockNotConfirmed }
        guard let keychain, let file, file.exists else { throw MessagingError.primaryFileUnprotected }
        guard file.isProtected || (try? file.protect()) != nil else { throw MessagingError.primaryFileUnprotected }
        guard let key = try keychain.key(item: item, create: false) else { throw PrimaryFileError.keyUnavailable }
        var contents = try file.load(key: key)
        let certificate = try DeviceCertificate.issue(by: contents.userKey(), userID: WireUUID(text: device.userID.rawValue),
                                                      deviceID: party.deviceID, identity: party.identity, epoch: contents.epoch,
                                                      notAfter: UInt32(clamping: clock.now + RenewalRule.lifetime))
        contents.append(CertificateLogEntry(deviceID: party.deviceID.text, identityBlob: party.identity.bytes, certificate: certificate))
        contents.mark = max(contents.mark, clock.now)
        try save(contents, to: file, key: key)
        record.logCount = contents.logCount
        let mirror = record
        try await store.write { [store] db in try store.ownUserKeyStore.store(mirror, db) }
        return certificate
    }

    /// Adds `deviceID` to the file's kept set (§10.11 step 6): from now on the primary renews it.
    /// Returns whether the device is kept — never one among the removed ids (§10.14: a removal
    /// voids its grants for good, so a late ack keeps nothing).
    /// - Throws: as ``issueGrantCertificate(for:)``.
    @discardableResult
    func keep(_ deviceID: WireUUID) async throws -> Bool {
        guard let keychain, let file, file.exists, let key = try keychain.key(item: item, create: false) else {
            throw MessagingError.primaryFileUnprotected
        }
        var contents = try file.load(key: key)
        guard !contents.removed.contains(deviceID.text) else { return false }
        guard !contents.kept.contains(deviceID.text) else { return true }
        contents.kept.append(deviceID.text)
        try save(contents, to: file, key: key)
        return true
    }

    /// Takes a grant on the new device (§10.11 step 5): in one transaction records our user's
    /// key as the grant's, this device as linked under it with the grant's certificate, and
    /// `primary` as the primary; then republishes this device's record carrying the certificate
    /// (same signed prekey and one-time prekeys).
    /// - Throws: key store errors; a server that cannot be reached leaves the upload for later.
    func adopt(_ grant: LinkGrant, primary: WireUUID) async throws {
        let certificate = grant.certificate
        let record = OwnUserKeyRecord(role: .linked, userKey: certificate.userKey.rawRepresentation, primaryDeviceID: primary.text,
                                      certificate: certificate.bytes, fileID: nil, epoch: certificate.epoch, logCount: 0, trustCounter: 0,
                                      createdAt: systemSeconds())
        try await store.write { [store] db in try store.ownUserKeyStore.store(record, db) }
        try await publish(certificate)
    }

    /// The newest certificate the file logged for each device it keeps, with the blob it was
    /// issued for (what the trust part sends for our own linked devices, §11.2 sub-kind `0x01`).
    /// Empty on a device that is not the primary or cannot open its file.
    func keptCertificates() async -> [String: (identity: IdentityBlob, certificate: DeviceCertificate)] {
        guard let record = try? await loadRecord(), record.role == .primary, let keychain, let file, file.exists,
              let key = try? keychain.key(item: item, create: false), let contents = try? file.load(key: key) else { return [:] }
        var kept: [String: (identity: IdentityBlob, certificate: DeviceCertificate)] = [:]
        for device in contents.kept {
            guard let body = contents.newestEntry(for: device)?.body, let identity = try? IdentityBlob(bytes: body.identityBlob),
                  let certificate = try? DeviceCertificate(bytes: body.certificate) else { continue }
            kept[device] = (identity, certificate)
        }
        return kept
    }
}
