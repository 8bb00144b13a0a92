import E2EECrypto
import E2EEKeyStore

extension Account {
    /// The safety number between us and `otherUserID` as it is now (docs/spec/protocol.md §7):
    /// over the devices of both users the server lists now whose keys this device sends to —
    /// a device held for approval, or declined, in every channel that knows it is left out
    /// until it is approved (§5). This is the number two users compare to verify what they
    /// already share; for the approval screen of a held device, show
    /// ``safetyNumberIfApproved(with:)``.
    ///
    /// Offline — the connection is trying to reach the server, or the server cannot be
    /// reached — the number is computed from the devices this device pinned and trusts,
    /// without the server, and says so (`SafetyNumber.isFromPinnedDevices`): show it as
    /// "offline, from the devices known here", and compare again once online.
    /// - Throws: ``ServerError`` when the server answers with an error, `ProtocolError` when a
    ///   user has no device to count, key store errors.
    ///
    /// For a user with a pinned user key, their half is computed from the key alone
    /// (docs/spec/protocol.md §10.18): it changes with the key, never with their devices.
    public func safetyNumber(with otherUserID: UserID) async throws -> SafetyNumber {
        // The user's listing first: a first contact with a keyed user pins the key there (§10.5).
        if serverAway == nil { _ = try? await directory.userKeyResolution(of: otherUserID) }
        let pinned = try await store.read { [store] db in try store.contactKeyStore.loadStanding(userID: otherUserID.rawValue, db)?.pinnedKey }
        if let pinned, let key = UserKey(publicKey: pinned) { return try await safetyNumber(with: otherUserID, userKey: key) }
        return try await safetyNumber(with: otherUserID, counting: .recipientsNow)
    }

    /// The safety number between us and `otherUserID` with their half computed under `userKey`
    /// (docs/spec/protocol.md §10.18, B.5) — any key listed for them, to compare before pinning
    /// it — or, with `nil`, as for a user without a key (§7.4, their trusted devices), to compare
    /// before forgetting their key. Our half is as in ``safetyNumber(with:)``.
    /// - Throws: as ``safetyNumber(with:)``.
    public func safetyNumber(with otherUserID: UserID, userKey: UserKey?) async throws -> SafetyNumber {
        guard let userKey else { return try await safetyNumber(with: otherUserID, counting: .recipientsNow) }
        let ours = try await ownDevicesForSafetyNumber()
        let ourBlobs = try await counted(ours, .recipientsNow)
        let own = ourBlobs.contains(identity.bytes) ? ourBlobs : ourBlobs + [identity.bytes]
        return try SafetyNumber(localUserID: userID.rawValue, local: .devices(own), remoteUserID: otherUserID.rawValue, remote: .userKey(userKey.publicKey))
    }

    /// Our own devices as the server lists them now, or as pinned here when it cannot be asked.
    private func ownDevicesForSafetyNumber() async throws -> [CountedDevice] {
        if serverAway == nil {
            do {
                return try await directory.devices(of: userID, refresh: true).map { ($0.deviceID, $0.identity.bytes) }
            } catch let error where SendFailure(error) == .unreachable {
                // Offline: the pinned devices below.
            }
        }
        return try await pinnedDevices(of: userID)
    }

    /// The safety number between us and `otherUserID` as it will be once every device now held
    /// for approval is approved (docs/spec/protocol.md §5.13, §7): the devices of
    /// ``safetyNumber(with:)`` and, added to them, the held devices of both users (our own
    /// included). Declined devices stay out. Show this one on the approval screen: it is the
    /// number the other user's devices will show after the approval, so comparing it first is
    /// how the user checks the new device before it gets any key. With nothing held, it equals
    /// ``safetyNumber(with:)``.
    /// - Throws: as ``safetyNumber(with:)``.
    public func safetyNumberIfApproved(with otherUserID: UserID) async throws -> SafetyNumber {
        try await safetyNumber(with: otherUserID, counting: .heldApproved)
    }

    /// Which listed devices a safety number covers.
    private enum CountedDevices {
        /// Devices keys go to: not held or declined everywhere it has a recipient row.
        case recipientsNow
        /// As if every held device were approved: only devices declined everywhere are left out.
        case heldApproved
    }

    private func safetyNumber(with otherUserID: UserID, counting: CountedDevices) async throws -> SafetyNumber {
        if serverAway == nil {
            do {
                let ours = try await directory.devices(of: userID, refresh: true).map { ($0.deviceID, $0.identity.bytes) }
                let theirs = try await directory.devices(of: otherUserID, refresh: true).map { ($0.deviceID, $0.identity.bytes) }
                return try await safetyNumber(with: otherUserID, ours: ours, theirs: theirs, counting: counting)
            } catch let error where SendFailure(error) == .unreachable {
                // Offline: the pinned devices below.
            }
        }
        var number = try await safetyNumber(with: otherUserID, ours: try await pinnedDevices(of: userID),
                                            theirs: try await pinnedDevices(of: otherUserID), counting: counting)
        number.isFromPinnedDevices = true
        return number
    }

    /// A device and its identity blob.
    private typealias CountedDevice = (id: DeviceID, blob: [UInt8])

    private func safetyNumber(with other: UserID, ours: [CountedDevice], theirs: [CountedDevice], counting: CountedDevices) async throws -> SafetyNumber {
        let ourBlobs = try await counted(ours, counting)
        let theirBlobs = try await counted(theirs, counting)
        // The directory leaves this device out of its answers; the number always covers it.
        let own = ourBlobs.contains(identity.bytes) ? ourBlobs : ourBlobs + [identity.bytes]
        return try SafetyNumber(localUserID: userID.rawValue, localIdentityBlobs: own,
                                remoteUserID: other.rawValue, remoteIdentityBlobs: theirBlobs)
    }

    /// The devices of `user` this device pinned, as the directory would answer without a
    /// listing: this device, devices with an identity change not accepted, and devices the
    /// server stopped listing wherever they had a standing are left out.
    /// - Throws: key store errors.
    private func pinnedDevices(of user: UserID) async throws -> [CountedDevice] {
        let ownDevice = deviceID.rawValue
        return try await store.read { [store] db -> [CountedDevice] in
            let changed = Set(try store.remoteIdentityStore.loadIdentityChanges(userID: user.rawValue, db).filter { !$0.accepted }.map(\.deviceID))
            return try store.remoteIdentityStore.loadIdentities(userID: user.rawValue, db).compactMap { pin -> CountedDevice? in
                guard pin.deviceID != ownDevice, !changed.contains(pin.deviceID) else { return nil }
                let states = Set(try store.recipientStore.loadRecipients(deviceID: pin.deviceID, db).map(\.state))
                return states == [.removed] ? nil : (DeviceID(stored: pin.deviceID), pin.identityBlob)
            }
        }
    }

    /// The blobs of `devices` without those the safety number leaves out (see ``CountedDevices``).
    /// - Throws: key store errors.
    private func counted(_ devices: [CountedDevice], _ counting: CountedDevices) async throws -> [[UInt8]] {
        let ids = devices.map(\.id)
        let excluded = try await store.read { [store] db -> Set<String> in
            var excluded: Set<String> = []
            for id in ids {
                let states = Set(try store.recipientStore.loadRecipients(deviceID: id.rawValue, db).map(\.state))
                guard !states.contains(.recipient) else { continue }
                switch counting {
                case .recipientsNow where !states.isDisjoint(with: [.held, .declined]): excluded.insert(id.rawValue)
                case .heldApproved where states.contains(.declined) && !states.contains(.held): excluded.insert(id.rawValue)
                default: break
                }
            }
            return excluded
        }
        return devices.filter { !excluded.contains($0.id.rawValue) }.map(\.blob)
    }
}
