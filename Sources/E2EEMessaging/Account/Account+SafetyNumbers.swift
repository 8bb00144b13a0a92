import E2EECrypto
import E2EEKeyStore

extension Account {
    /// The safety number between us and `otherUserID` as it is now (docs/spec/protocol.md §7):
    /// over the devices of both users the server lists now whose keys this device sends to —
    /// a device held for approval, or declined, in every channel that knows it is left out
    /// until it is approved (§5). This is the number two users compare to verify what they
    /// already share; for the approval screen of a held device, show
    /// ``safetyNumberIfApproved(with:)``.
    /// - Throws: ``ServerError`` when the device lists cannot be read, `ProtocolError` when a
    ///   user lists no device, key store errors.
    public func safetyNumber(with otherUserID: UserID) async throws -> SafetyNumber {
        try await safetyNumber(with: otherUserID, counting: .recipientsNow)
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
        let other = otherUserID
        let ours = try await counted(try await directory.devices(of: userID, refresh: true), counting).map(\.identity.bytes)
        let theirs = try await counted(try await directory.devices(of: other, refresh: true), counting).map(\.identity.bytes)
        // The directory leaves this device out of its answers; the number always covers it.
        let own = ours.contains(identity.bytes) ? ours : ours + [identity.bytes]
        return try SafetyNumber(localUserID: userID.rawValue, localIdentityBlobs: own,
                                remoteUserID: other.rawValue, remoteIdentityBlobs: theirs)
    }

    /// `devices` without those the safety number leaves out (see ``CountedDevices``).
    /// - Throws: key store errors.
    private func counted(_ devices: [RemoteDevice], _ counting: CountedDevices) async throws -> [RemoteDevice] {
        let ids = devices.map(\.deviceID)
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
        return devices.filter { !excluded.contains($0.deviceID.rawValue) }
    }
}
