import E2EECrypto
@_spi(StoreInternals) import E2EEKeyStore

/// Reads a channel's timeline for the app: pages of messages by `(created_at, id)`, control
/// rows (sender key distributions) and duplicate rows left out, each stored payload decoded,
/// messages the server no longer has marked ``TimelineItem/removedFromServer``, our own
/// messages with their ``TimelineItem/delivery`` state and ``TimelineItem/localID``, our own
/// messages not posted yet as local echoes (``TimelineItem/isLocalEcho``) after the posted
/// rows, and messages that leave this device out and predate it shown as
/// ``TimelineItem/State/sentBeforeThisDevice``, and messages whose text came from the primary's
/// history transfer labelled ``TimelineItem/transferredFrom``.
public struct TimelineReader: Sendable {
    let store: KeyStore

    /// A reader of `store`.
    public init(store: KeyStore) { self.store = store }

    /// Up to `limit` messages of `channelID` strictly before `position` (the newest when nil),
    /// oldest → newest. The newest page ends with the channel's local echoes — our own messages
    /// not posted yet, in sending order (``TimelineItem/isLocalEcho``) — which count toward
    /// `limit`; page further back from its first posted row.
    /// - Throws: `KeyStoreError` for a tampered row, GRDB's `DatabaseError`.
    public func page(channelID: ChannelID, before position: TimelinePosition? = nil, limit: Int = 50) async throws -> [TimelineItem] {
        let cursor = position.map { TimelineCursor(createdAt: StoreTime(microseconds: $0.createdAt.microseconds), messageID: $0.messageID.rawValue) }
        let posted = try await completed(try await store.receivedTimelinePage(channelID: channelID.rawValue, before: cursor, limit: limit).map(Self.item))
        guard position == nil else { return posted }
        let echoes = try await localEchoes(channelID: channelID)
        return echoes.isEmpty ? posted : Array((posted + echoes).suffix(max(0, limit)))
    }

    /// One message by server id, or a local echo by the outbox id it carries as its
    /// ``TimelineItem/messageID`` (nil when unknown, not a timeline message, or an echo that
    /// was posted or cancelled since).
    /// - Throws: as ``page(channelID:before:limit:)``.
    public func item(messageID: MessageID) async throws -> TimelineItem? {
        guard let stored = try await store.receivedMessage(id: messageID.rawValue) else { return try await localEcho(localID: messageID.rawValue) }
        guard stored.facts.kind == .message else { return nil }
        return try await completed([Self.item(stored)]).first
    }

    /// `items` with what the rows alone do not say: held senders flagged, removals from the
    /// server marked, delivery states joined, and history from before this device told apart.
    private func completed(_ items: [TimelineItem]) async throws -> [TimelineItem] {
        guard !items.isEmpty else { return items }
        var items = try await flagged(items)
        let removed = try await store.removedFromServer(messageIDs: items.map(\.messageID.rawValue))
        let transferred = try await store.transferredSources(messageIDs: items.map(\.messageID.rawValue))
        let postings = try await store.postingEntries(messageIDs: items.filter(\.isOwn).map(\.messageID.rawValue))
        let setUpAt = items.contains { Self.mayPredateThisDevice($0.state) } ? try await store.deviceSetUpAt() : nil
        let unaccepted = try await unacceptedChannels(Set(items.filter { $0.state == .pending }.map(\.channelID)))
        for index in items.indices {
            let id = items[index].messageID
            items[index].removedFromServer = removed.contains(id.rawValue)
            items[index].transferredFrom = transferred[id.rawValue].map { DeviceID(stored: $0) }
            // A deleted message is gone for everyone: no tick says it reached anyone.
            if items[index].isOwn, let posting = postings[id.rawValue] {
                items[index].localID = OutboxEntryID(stored: posting.localID)
                if items[index].state != .deleted { items[index].delivery = posting.state }
            }
            if let setUpAt, Self.mayPredateThisDevice(items[index].state), items[index].createdAt.microseconds < setUpAt.microseconds {
                items[index].state = .sentBeforeThisDevice
            } else if items[index].state == .undecryptable(.notARecipient) {
                items[index].state = .sentBeforeApproval
            }
            items[index].waitsForAcceptance = items[index].state == .pending && unaccepted.contains(items[index].channelID)
        }
        return items
    }

    /// Which of `channels` this device has not accepted (a request, or declined): their
    /// pending messages wait for the app's acceptance, not for a key.
    private func unacceptedChannels(_ channels: Set<ChannelID>) async throws -> Set<ChannelID> {
        guard !channels.isEmpty else { return [] }
        return try await store.read { [store] db in
            try Set(channels.filter { channel in
                let standing = try store.channelTrustStore.loadPin(channelID: channel.rawValue, db)?.standing
                return standing == .request || standing == .declined
            })
        }
    }

    /// The states of a message this device has no key for that, when it predates this device,
    /// it never will: a DM envelope that does not address it, or a group message still waiting
    /// for its sender key — a sender key reaches only the devices it was made for, never one
    /// added later (docs/spec/protocol.md §4.8). Decided at each read, never stored: should the
    /// key come after all, the row reads as decrypted.
    private static func mayPredateThisDevice(_ state: TimelineItem.State) -> Bool {
        state == .undecryptable(.notARecipient) || state == .pending
    }

    /// `items` with ``TimelineItem/senderHeld`` set for senders this device does not trust in
    /// their channel — by the one rule tombstones and announcements use
    /// (`KeyStore.isTrustedSender`: a device held or declined anywhere, an unknown device of a
    /// user this device knows, a member held or declined in the channel) — and
    /// ``TimelineItem/senderNotComparedYet`` (flagged too) for a user with no member standing in
    /// a group this device created or accepted.
    private func flagged(_ items: [TimelineItem]) async throws -> [TimelineItem] {
        let senders = Set(items.filter { !$0.isOwn }.compactMap { item -> SenderKey? in
            guard let user = item.senderUserID, let device = item.senderDeviceID else { return nil }
            return SenderKey(channelID: item.channelID.rawValue, userID: user.rawValue, deviceID: device.rawValue)
        })
        guard !senders.isEmpty else { return items }
        let verdicts = try await store.read { [store] db -> [SenderKey: SenderVerdict] in
            var verdicts: [SenderKey: SenderVerdict] = [:]
            var openGroups: [String: [String: MemberStanding]?] = [:]
            for sender in senders {
                if openGroups[sender.channelID] == nil {
                    let pin = try store.channelTrustStore.loadPin(channelID: sender.channelID, db)
                    let open = pin.map { !$0.isDM && ($0.standing == .created || $0.standing == .accepted) } ?? false
                    openGroups[sender.channelID] = .some(open ? try store.channelTrustStore.loadMembers(channelID: sender.channelID, db) : nil)
                }
                let trusted = try store.isTrustedSender(channelID: sender.channelID, userID: sender.userID, deviceID: sender.deviceID, db)
                var notCompared = false
                if let standings = openGroups[sender.channelID] ?? nil {
                    let state = standings[sender.userID]?.state
                    notCompared = state == nil || state == .gone
                }
                verdicts[sender] = SenderVerdict(trusted: trusted, notComparedYet: notCompared)
            }
            return verdicts
        }
        return items.map { item in
            var item = item
            guard !item.isOwn, let user = item.senderUserID, let device = item.senderDeviceID,
                  let verdict = verdicts[SenderKey(channelID: item.channelID.rawValue, userID: user.rawValue, deviceID: device.rawValue)] else { return item }
            item.senderNotComparedYet = verdict.notComparedYet
            item.senderHeld = !verdict.trusted || verdict.notComparedYet
            return item
        }
    }

    /// A sending device in a channel.
    private struct SenderKey: Hashable, Sendable {
        var channelID: String
        var userID: String
        var deviceID: String
    }

    /// What ``flagged(_:)`` decided about one sender.
    private struct SenderVerdict: Sendable {
        var trusted: Bool
        var notComparedYet: Bool
    }

    /// The app's view of a stored row. The plaintext of a decrypted or own message is its
    /// payload JSON exactly as encrypted; one that no longer parses is shown as invalid.
    static func item(_ stored: ReceivedMessage) -> TimelineItem {
        let row = stored.message
        var state: TimelineItem.State
        var text: String?
        var replyTo: MessageID?
        switch row.state {
        case .decrypted:
            state = .decrypted
            if let plaintext = row.plaintext, let payload = try? MessagePayload(json: plaintext) {
                text = payload.text
                replyTo = payload.replyTo.map { MessageID($0.text) }
            } else {
                state = .undecryptable(.invalidPayload)
            }
        case .pendingKey:
            state = .pending
        case .undecryptable(let reason):
            let known = UndecryptableReason(stored: reason)
            state = known == .unsupportedFormat ? .unsupportedFormat : .undecryptable(known)
        case .unencrypted:
            state = .unencrypted
            text = row.plaintext.map { String(decoding: $0.unprotectedCopy(), as: UTF8.self) }
        case .deleted:
            state = .deleted
        }
        return TimelineItem(
            messageID: MessageID(stored: row.messageID), channelID: ChannelID(stored: row.channelID), senderUserID: row.senderUserID.map { UserID(stored: $0) }, senderDeviceID: row.senderDeviceID.map { DeviceID(stored: $0) },
            createdAt: ServerTimestamp(microseconds: row.createdAt.microseconds), state: state, text: text, replyTo: replyTo,
            editedAt: stored.facts.editedAt.map { ServerTimestamp(microseconds: $0.microseconds) }, isOwn: row.isOwn)
    }
}
