import E2EECrypto
import Foundation
@_spi(StoreInternals) import E2EEKeyStore

extension PrimaryIssuer {
    /// The old primary of this installation as its store and its file show it
    /// (docs/spec/protocol.md §10.15): the store of an earlier login of our user on this
    /// installation, whose primary file lies beside it and opens with the same keychain item.
    struct TakeOverSource: Sendable {
        /// The old device's id (lower-case text).
        let deviceID: String
        /// The old store's mirror of its file.
        let record: OwnUserKeyRecord
        /// The old store's legacy own devices.
        let legacy: [LegacyOwnDevice]
        /// The old file.
        let file: PrimaryFile
        /// What it holds.
        let contents: PrimaryFileContents
    }

    /// The old device's id in `oldStore`, refused when it is no earlier login of our user on
    /// this installation.
    /// - Throws: ``MessagingError/noAccount``, ``MessagingError/invalidMessage(_:)`` (this store,
    ///   a store in memory, another user's store), key store errors.
    func takeOverDeviceID(in oldStore: KeyStore) async throws -> String {
        guard let oldPath = oldStore.path, oldPath != store.path else {
            throw MessagingError.invalidMessage("the old store must be another store file on this installation")
        }
        guard let account = try await oldStore.loadAccount() else { throw MessagingError.noAccount }
        guard account.userID.lowercased() == device.userID.rawValue.lowercased() else {
            throw MessagingError.invalidMessage("the old store belongs to another user")
        }
        guard account.deviceID.lowercased() != device.deviceID.rawValue.lowercased() else {
            throw MessagingError.invalidMessage("the old store is this device's own")
        }
        return account.deviceID.lowercased()
    }

    /// Opens the old primary's file beside `oldStore` with this installation's keychain item
    /// and checks it against the old store's mirror (§10.12's checks: the same file id, the
    /// mirror not ahead).
    /// - Throws: ``MessagingError/notPrimary`` (the old store is not a primary),
    ///   ``MessagingError/issuingStopped(_:)`` (it stopped, or its file and mirror disagree),
    ///   ``MessagingError/primaryFileUnprotected`` (no keychain), ``PrimaryFileError`` (no
    ///   file, a key that does not open it), and what ``takeOverDeviceID(in:)`` throws.
    func takeOverSource(_ oldStore: KeyStore) async throws -> TakeOverSource {
        let oldDevice = try await takeOverDeviceID(in: oldStore)
        guard let keychain, let oldPath = oldStore.path else { throw MessagingError.primaryFileUnprotected }
        let (record, legacy) = try await oldStore.read { db in
            (try oldStore.ownUserKeyStore.load(db), try oldStore.ownUserKeyStore.loadLegacyDevices(db))
        }
        guard let record, record.role == .primary else { throw MessagingError.notPrimary }
        if let stop = record.issuingStopped { throw MessagingError.issuingStopped(IssuingStopReason(stop)) }
        let oldFile = PrimaryFile(storePath: oldPath)
        guard let key = try keychain.key(item: item, create: false) else { throw PrimaryFileError.keyUnavailable }
        let contents = try oldFile.load(key: key)
        guard contents.fileID == record.fileID, record.epoch <= contents.epoch, record.logCount <= contents.logCount,
              record.trustCounter <= contents.trustCounter else { throw MessagingError.issuingStopped(.restoredFile) }
        guard !contents.removed.contains(device.deviceID.rawValue.lowercased()) else {
            throw MessagingError.invalidMessage("this device was removed by the old primary")
        }
        return TakeOverSource(deviceID: oldDevice, record: record, legacy: legacy, file: oldFile, contents: contents)
    }

    /// The one save of a take-over (§10.15 running §10.14): the old file's contents, written
    /// beside this store under the same keychain item, with the epoch raised by one, the old
    /// device out of the kept set and among the removed ids for good, this device kept, a new
    /// certificate at the new epoch for this device and every kept device (all logged), and
    /// the removal of the old device recorded as in progress at its first step; then this
    /// store's mirror (primary, the old store's creation time) and the old store's legacy own
    /// devices. A file this step saved before a crash is taken up again, not issued twice.
    /// Nothing leaves the device here, and the old file is not touched.
    /// - Throws: ``MessagingError/clockNotConfirmed``, ``MessagingError/primaryFileUnprotected``,
    ///   ``MessagingError/userKeyExists`` (another file lies beside this store),
    ///   ``MessagingError/invalidMessage(_:)`` (the epoch cannot rise further),
    ///   ``PrimaryFileError``, key store errors.
    func saveTakeOver(from source: TakeOverSource) async throws -> PrimaryFileContents {
        guard let keychain, let file else { throw MessagingError.primaryFileUnprotected }
        let (clock, _) = try await advanceClock()
        if clock.readings.wentBack || clock.readings.suspect { throw MessagingError.clockNotConfirmed }
        do { try file.protect() } catch { throw MessagingError.primaryFileUnprotected }
        guard let key = try keychain.key(item: item, create: false) else { throw PrimaryFileError.keyUnavailable }
        let me = try WireUUID(text: device.deviceID.rawValue)
        var contents: PrimaryFileContents
        if file.exists {
            // Saved before a crash that came ahead of the mirror: the same take-over, taken up again.
            let saved = try file.load(key: key)
            guard saved.fileID == source.contents.fileID, saved.removed.contains(source.deviceID), saved.kept.contains(me.text) else {
                throw MessagingError.userKeyExists
            }
            contents = saved
        } else {
            contents = source.contents
            guard contents.epoch < DeviceCertificate.epochRange.upperBound else { throw MessagingError.invalidMessage("the epoch cannot rise further") }
            contents.epoch += 1
            contents.kept.removeAll { $0 == source.deviceID }
            if !contents.removed.contains(source.deviceID) { contents.removed.append(source.deviceID) }
            contents.removal = PendingRemoval(deviceID: source.deviceID, stage: .republish)
            _ = try issue(to: me, identity: device.identity.publicIdentity, into: &contents, now: clock.now)
            for kept in contents.kept where kept != me.text {
                guard let body = contents.newestEntry(for: kept)?.body, let identity = try? IdentityBlob(bytes: body.identityBlob),
                      let party = try? WireUUID(text: kept) else { continue }
                _ = try issue(to: party, identity: identity, into: &contents, now: clock.now)
            }
            contents.kept.append(me.text)
            contents.prune(at: max(clock.now, clock.readings.mark, contents.mark))
            try save(contents, to: file, key: key)
        }
        let record = OwnUserKeyRecord(role: .primary, userKey: try contents.userKey().publicKey.rawRepresentation, primaryDeviceID: me.text,
                                      certificate: contents.newestEntry(for: me.text)?.body?.certificate, fileID: contents.fileID,
                                      epoch: contents.epoch, logCount: contents.logCount, trustCounter: contents.trustCounter,
                                      createdAt: source.record.createdAt)
        let legacy = source.legacy.filter { $0.deviceID != source.deviceID && $0.deviceID != me.text }
        try await store.write { [store] db in
            try store.ownUserKeyStore.store(record, db)
            try store.ownUserKeyStore.addLegacyDevices(legacy, db)
        }
        return contents
    }

    /// Whether this device's own file records a take-over from `oldDeviceID` (the step that
    /// saved it ran; what follows it may not have).
    func tookOver(from oldDeviceID: String) -> Bool {
        guard let contents = try? openFile().2 else { return false }
        return contents.removed.contains(oldDeviceID) && contents.kept.contains(device.deviceID.rawValue.lowercased())
    }

    /// Deletes the old file once this device's file and mirror are saved, so that one file of
    /// the key is left on the installation (the old store, opened again, finds its file
    /// missing and stops issuing, §10.12). Only a file of the same key is deleted.
    func retireOldFile(beside oldStore: KeyStore, fileID: [UInt8]) {
        guard let keychain, let oldPath = oldStore.path, let key = try? keychain.key(item: item, create: false) else { return }
        let oldFile = PrimaryFile(storePath: oldPath)
        guard let contents = try? oldFile.load(key: key), contents.fileID == fileID else { return }
        try? oldFile.remove()
    }
}
