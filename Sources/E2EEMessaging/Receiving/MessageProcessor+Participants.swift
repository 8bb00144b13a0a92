@_spi(StoreInternals) import E2EEKeyStore

extension MessageProcessor {
    /// ``ParticipantRule/admission(of:ownUser:participants:)`` of a DM message from `userID`,
    /// over the participants the lane reads; a third user is refused.
    /// - Throws: ``ReceiveRefusal`` (`notAParticipant`), key store errors.
    func checkParticipant(_ userID: UserID, in channelID: ChannelID, lane: LaneState) async throws -> ParticipantRule.Admission {
        let admission = ParticipantRule.admission(of: userID, ownUser: device.userID, participants: try await lane.dmParticipants(channelID: channelID))
        if admission == .notAParticipant { throw ReceiveRefusal(.notAParticipant) }
        return admission
    }

    /// ``ParticipantRule/participantsFixed(namingOther:sender:ownUser:participants:)`` of a
    /// decrypted DM message naming `other`: the participants it fixes — stored with the
    /// message's row (``ReceiveWrite/fixesParticipants``) and kept by the lane for its later
    /// messages — or nil. The participants are read only for our own user's messages, and only
    /// a device of ours this device trusts decides (`KeyStore.isTrustedOwnDevice`, the rule
    /// announcements use: listed at registration or login, or approved since, and held or
    /// declined nowhere): a device the server added to our account names nobody's DM.
    /// - Throws: key store errors.
    func participantsToFix(_ other: String, namedBy sender: UserID, device senderDevice: DeviceID, in channelID: ChannelID,
                           lane: LaneState) async throws -> Set<String>? {
        guard sender == device.userID else { return nil }
        let trusted = try await store.briefRead { [store] db in
            try store.isTrustedOwnDevice(userID: sender.rawValue, deviceID: senderDevice.rawValue, channelID: channelID.rawValue, db)
        }
        guard trusted else { return nil }
        let participants = try await lane.dmParticipants(channelID: channelID)
        guard let users = ParticipantRule.participantsFixed(namingOther: other, sender: sender, ownUser: device.userID, participants: participants) else {
            return nil
        }
        lane.fixParticipants(users, channelID: channelID)
        return users
    }
}
