@_spi(StoreInternals) import E2EEKeyStore

extension MessageProcessor {
    /// Whether a DM message may be decrypted now (docs/spec/protocol.md §5, §9): checked before
    /// any key is used, so neither answer changes state.
    enum ParticipantCheck: Equatable {
        /// From one of the DM's two fixed participants, or from our own user.
        case allowed
        /// The DM is a request on this device (no participant fixed): the message waits, not
        /// decrypted, until the app accepts the request (``WaitingKey/request(channelID:)``).
        case waitForAcceptance
    }

    /// A DM message must come from one of the DM's two fixed participants; while they are not
    /// fixed in a channel this device has learned (a request), a message from another user
    /// waits and ours pass. (A channel the account never learned has no request to wait for:
    /// only the pipeline used on its own, without the account's directory, sees one — the
    /// account ingests messages of stored channels only.)
    /// - Throws: ``ReceiveRefusal`` (`notAParticipant`), key store errors.
    func checkParticipant(_ userID: UserID, in channelID: ChannelID, lane: LaneState) async throws -> ParticipantCheck {
        let read = try await lane.dmParticipants(channelID: channelID)
        let (participants, learned) = (read.users, read.learned)
        let user = userID
        if participants.isEmpty { return user == device.userID || !learned ? .allowed : .waitForAcceptance }
        guard participants.contains(user.rawValue) else { throw ReceiveRefusal(.notAParticipant) }
        return .allowed
    }

    /// A DM message our own user wrote on another device names the DM's other participant
    /// (payload `with`): when this device has not fixed the participants yet, our own decision
    /// fixes them and accepts the DM here (docs/spec/protocol.md §5.10). Called once the message
    /// decrypted (authenticated as our own device); returns the participants it fixes — stored
    /// with the message's row (``ReceiveWrite/fixesParticipants``), and kept by the lane for its
    /// later messages — or nil.
    /// - Throws: key store errors.
    func participantsToFix(_ other: String, namedBy sender: UserID, in channelID: ChannelID, lane: LaneState) async throws -> Set<String>? {
        let own = device.userID
        let other = other.lowercased()
        guard sender == own, other != own.rawValue else { return nil }
        let read = try await lane.dmParticipants(channelID: channelID)
        guard read.users.isEmpty, !read.pinnedAsGroup else { return nil }
        let users: Set<String> = [own.rawValue, other]
        lane.fixParticipants(users, channelID: channelID)
        return users
    }
}
