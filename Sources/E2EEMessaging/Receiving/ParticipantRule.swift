/// Who may write in a DM, and when our own device's message fixes its participants
/// (docs/spec/protocol.md §5, §5.10, §9), as a pure decision over what the lane read
/// (``DMParticipants``): no I/O, no lock, no clock. The processor reads, asks, and applies.
enum ParticipantRule {
    /// What a DM message from a user may do before any key is used (neither answer changes state).
    enum Admission: Equatable {
        /// From one of the DM's two fixed participants, or from our own user.
        case allowed
        /// The DM is a request on this device (no participant fixed): the message waits, not
        /// decrypted, until the app accepts the request (``WaitingKey/request(channelID:)``).
        case waitForAcceptance
        /// A third user in a DM whose participants are fixed: refused.
        case notAParticipant
    }

    /// A DM message from `sender` in a DM whose participants are `participants`: fixed
    /// participants admit only themselves; while none are fixed in a channel this device has
    /// learned (a request), our own user passes and anyone else waits. A channel the device
    /// never learned has no request to wait for (only a pipeline used on its own, without the
    /// account's directory, meets one: the account ingests messages of stored channels only).
    static func admission(of sender: UserID, ownUser: UserID, participants: DMParticipants) -> Admission {
        if participants.users.isEmpty { return sender == ownUser || !participants.learned ? .allowed : .waitForAcceptance }
        return participants.users.contains(sender.rawValue) ? .allowed : .notAParticipant
    }

    /// The participants a decrypted DM message fixes: when our own user wrote it (on another
    /// device, authenticated by decrypting under that device's session) naming `other` in its
    /// payload's `with`, and this device has fixed none yet in a DM not pinned as a group, our
    /// own decision fixes us and `other` (and accepts the DM here). Nil otherwise.
    static func participantsFixed(namingOther other: String, sender: UserID, ownUser: UserID, participants: DMParticipants) -> Set<String>? {
        let other = other.lowercased()
        guard sender == ownUser, other != ownUser.rawValue, participants.users.isEmpty, !participants.pinnedAsGroup else { return nil }
        return [ownUser.rawValue, other]
    }
}
