import E2EECrypto
@_spi(StoreInternals) import E2EEKeyStore

extension Account {
    /// Takes over as primary after a new login on the same installation
    /// (docs/spec/protocol.md §10.15). A login is a new device; when the user's earlier login
    /// here held the user key (its store `oldStore`, whose primary file lies beside it and opens
    /// with the same ``AccountConfiguration/primaryFileKeychain`` item), the app asks the user,
    /// then calls this on the new login. It carries the old store's trust decisions and history
    /// into this store locally (nothing leaves the installation), writes the primary file
    /// beside this store at a new epoch with the old device removed and this device kept, and
    /// runs the removal of §10.14 as ``removeDevice(_:)`` does: this device's record is
    /// republished (the new epoch unlinks the old device wherever it is read), the old device
    /// is deleted on the server, and every kept device is sent its new certificate in a recert,
    /// which makes this device its primary. The old file is deleted once the new one is saved.
    ///
    /// Before anything changes, our own listing is read: when it shows a current certificate of
    /// our user under another key, the take-over stops and says which kept devices carry it
    /// (``TakeOverOutcome/anotherKeyListed(keys:carriers:)``; none named: a fresh login's
    /// reset, or a device the server made). The user then links this device to the new primary
    /// (``startLinking()``) or, sure that no reset was made, calls again with
    /// `ignoringAnotherKey`. Calling again after an interruption finishes what was left.
    /// - Parameters:
    ///   - oldStore: the store of the earlier login, opened (another store file of this installation).
    ///   - ignoringAnotherKey: go on although another key is listed.
    /// - Returns: what was done.
    /// - Throws: ``MessagingError/notPrimary`` (the old store is not a primary),
    ///   ``MessagingError/userKeyExists`` (this device holds a key already),
    ///   ``MessagingError/invalidMessage(_:)`` (this store, another user's, one in memory),
    ///   ``MessagingError/noAccount``, ``MessagingError/issuingStopped(_:)`` (the old primary
    ///   stopped, or its file and store disagree), ``MessagingError/clockNotConfirmed``,
    ///   ``MessagingError/primaryFileUnprotected``, `PrimaryFileError` (no file beside the old
    ///   store, or a keychain key that does not open it), ``ServerError`` (the listing cannot be
    ///   read: nothing changed; or a removal step failed after the save: it resumes at the next
    ///   start-up), key store errors.
    public func takeOverPrimary(from oldStore: KeyStore, ignoringAnotherKey: Bool = false) async throws -> TakeOverOutcome {
        let issuer = primaryIssuer
        let oldDevice = try await issuer.takeOverDeviceID(in: oldStore)
        if let own = try await issuer.loadRecord(), own.role != .unlinked {
            // A take-over saved before an interruption is finished; any other key here stays.
            guard own.role == .primary, issuer.tookOver(from: oldDevice), let fileID = own.fileID else { throw MessagingError.userKeyExists }
            return try await finishTakeOver(from: oldStore, oldDevice: oldDevice, fileID: fileID, epoch: own.epoch)
        }
        let source = try await issuer.takeOverSource(oldStore)
        let userKey = try source.contents.userKey().publicKey.rawRepresentation
        if !ignoringAnotherKey {
            let listed = try await issuer.anotherKeyListed(ourKey: userKey)
            if !listed.keys.isEmpty {
                let carriers = listed.devices.filter { source.contents.kept.contains($0) && $0 != source.deviceID }
                return .anotherKeyListed(keys: listed.keys.compactMap(UserKey.init(publicKey:)), carriers: carriers.map { DeviceID(stored: $0) })
            }
        }
        // A removal the old primary left in progress: its delete is done here, before the save
        // replaces it (the new epoch and the recerts cover the rest).
        if let pending = source.contents.removal {
            do {
                try await api.deleteDevice(id: DeviceID(pending.deviceID))
            } catch ServerError.notFound {
                // Gone already.
            }
        }
        _ = try await LocalCarryOver(from: oldStore, to: store, oldDeviceID: source.deviceID, userKey: userKey,
                                     now: configuration.userKeyClock()).run()
        let contents = try await locks.withLock(Self.issuingLock) { try await issuer.saveTakeOver(from: source) }
        #if DEBUG
        configuration.testCrash(at: .primaryFileSaved)
        #endif
        return try await finishTakeOver(from: oldStore, oldDevice: source.deviceID, fileID: contents.fileID, epoch: contents.epoch)
    }

    /// The steps after a take-over's save: the old file deleted, then the removal of the old
    /// device carried to its end (§10.14).
    private func finishTakeOver(from oldStore: KeyStore, oldDevice: String, fileID: [UInt8], epoch: UInt32) async throws -> TakeOverOutcome {
        primaryIssuer.retireOldFile(beside: oldStore, fileID: fileID)
        await directory.invalidate()
        try await resumeRemoval()
        return .tookOver(removed: DeviceID(stored: oldDevice), epoch: epoch)
    }
}
