import E2EECrypto
@_spi(StoreInternals) import E2EEKeyStore

extension PrimaryIssuer {
    /// The one save of a removal of `removed` (docs/spec/protocol.md §10.14): the file's epoch
    /// raised by one, `removed` out of the kept set and among the removed ids for good, a new
    /// certificate at the new epoch for this device and every kept device (all logged), the
    /// removal recorded as in progress at its first step — then the store's mirror follows.
    /// Nothing leaves the device here.
    /// - Throws: ``MessagingError/notPrimary``, ``MessagingError/issuingStopped(_:)``,
    ///   ``MessagingError/clockNotConfirmed``, ``MessagingError/primaryFileUnprotected``,
    ///   ``MessagingError/invalidMessage(_:)`` (the epoch cannot rise further),
    ///   ``PrimaryFileError``, key store errors.
    func saveRemoval(of removed: WireUUID) async throws {
        guard var record = try await loadRecord(), record.role == .primary else { throw MessagingError.notPrimary }
        if let stop = record.issuingStopped { throw MessagingError.issuingStopped(IssuingStopReason(stop)) }
        let (clock, _) = try await advanceClock()
        if clock.readings.wentBack || clock.readings.suspect { throw MessagingError.clockNotConfirmed }
        let (file, key, loaded) = try openFile()
        guard file.isProtected || (try? file.protect()) != nil else { throw MessagingError.primaryFileUnprotected }
        var contents = loaded
        guard contents.epoch < DeviceCertificate.epochRange.upperBound else { throw MessagingError.invalidMessage("the epoch cannot rise further") }
        contents.epoch += 1
        contents.kept.removeAll { $0 == removed.text }
        if !contents.removed.contains(removed.text) { contents.removed.append(removed.text) }
        contents.removal = PendingRemoval(deviceID: removed.text, stage: .republish)
        let me = try WireUUID(text: device.deviceID.rawValue)
        let own = try issue(to: me, identity: device.identity.publicIdentity, into: &contents, now: clock.now)
        for kept in contents.kept where kept != me.text {
            guard let body = contents.newestEntry(for: kept)?.body, let identity = try? IdentityBlob(bytes: body.identityBlob),
                  let party = try? WireUUID(text: kept) else { continue }
            _ = try issue(to: party, identity: identity, into: &contents, now: clock.now)
        }
        contents.prune(at: max(clock.now, clock.readings.mark, contents.mark))
        try save(contents, to: file, key: key)
        record.certificate = own.bytes
        record.epoch = contents.epoch
        record.logCount = contents.logCount
        let mirror = record
        try await store.write { [store] db in try store.ownUserKeyStore.store(mirror, db) }
    }

    /// The removal the file holds in progress, if any (nil too on a device that is not the
    /// primary or cannot open its file).
    func removalInProgress() -> PendingRemoval? {
        (try? openFile())?.2.removal
    }

    /// Records that the removal in progress reached `stage` (`nil`: done).
    /// - Throws: ``MessagingError/primaryFileUnprotected``, ``PrimaryFileError``.
    func advanceRemoval(to stage: PendingRemoval.Stage?) throws {
        let (file, key, loaded) = try openFile()
        var contents = loaded
        guard var removal = contents.removal else { return }
        if let stage {
            removal.stage = stage
            contents.removal = removal
        } else {
            contents.removal = nil
        }
        try save(contents, to: file, key: key)
    }

    /// The recert of each kept device's newest logged certificate (the removal's last step).
    /// - Throws: ``MessagingError/primaryFileUnprotected``, ``PrimaryFileError``.
    func keptRecerts() throws -> [RecertOrder] {
        let contents = try openFile().2
        return try contents.kept.filter { $0 != device.deviceID.rawValue }.compactMap { kept in
            guard let bytes = contents.newestEntry(for: kept)?.body?.certificate, let certificate = try? DeviceCertificate(bytes: bytes),
                  let party = try? WireUUID(text: kept) else { return nil }
            return try recert(certificate, to: party, contents: contents, reason: .issued)
        }
    }

    /// Whether the file lists `deviceID` among the removed ids (false on a device that is not
    /// the primary).
    func isRemoved(_ deviceID: String) -> Bool {
        guard let contents = try? openFile().2 else { return false }
        return contents.removed.contains(deviceID.lowercased())
    }

    /// The file, its key and its contents.
    /// - Throws: ``MessagingError/primaryFileUnprotected`` (no keychain, no file),
    ///   ``PrimaryFileError``.
    func openFile() throws -> (PrimaryFile, SecretBytes, PrimaryFileContents) {
        guard let keychain, let file, file.exists else { throw MessagingError.primaryFileUnprotected }
        guard let key = try keychain.key(item: item, create: false) else { throw PrimaryFileError.keyUnavailable }
        return (file, key, try file.load(key: key))
    }
}
