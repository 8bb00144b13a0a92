import E2EECrypto
@_spi(StoreInternals) import E2EEKeyStore
import Foundation

extension Account {
    /// Encrypts `text` for `channelID` and queues it; the outbox posts it (in channel order)
    /// and reports its delivery states (``AccountEvent/delivery(_:)``, keyed by the report's
    /// ``SendReport/localID``). The exact `content` and our plaintext are stored before any
    /// network I/O. The report says which recipients this send surfaced, held or saw removed
    /// (docs/spec/protocol.md §5). When the message cannot be encrypted (T12) — for instance
    /// because every recipient device is held (``SendReport/everyRecipientHeld``) — nothing is
    /// sent: the report is `.failed` with its reason, and ``retry(_:)`` encrypts it again later.
    /// - Throws: ``MessagingError/invalidMessage(_:)`` for a text the protocol refuses,
    ///   ``MessagingError/unknownChannel(_:)``, key store errors.
    @discardableResult
    public func send(text: String, to channelID: ChannelID, replyTo: MessageID? = nil) async throws -> SendReport {
        let payload = try makePayload(text: text, editOf: nil, replyTo: replyTo, with: try await directMessageParticipant(channelID))
        return try await queueReporting(payload: payload, channelID: channelID, kind: .message, target: nil)
    }

    /// Replaces the text of one of our messages (an encrypted edit, payload `edit_of`). The edit
    /// keeps the message's payload id, so a device that first sees the edited version still
    /// matches the message's tombstone if it is deleted later (docs/spec/protocol.md §6.7).
    /// - Throws: ``MessagingError/notOwnMessage(_:)``, as ``send(text:to:replyTo:)``.
    @discardableResult
    public func edit(_ messageID: MessageID, text: String) async throws -> SendReport {
        let message = try await ownMessage(messageID)
        let payload = try makePayload(text: text, id: Self.payloadID(of: message), editOf: message.messageID, replyTo: nil,
                                      with: try await directMessageParticipant(ChannelID(stored: message.channelID)))
        return try await queueReporting(payload: payload, channelID: ChannelID(stored: message.channelID), kind: .edit, target: message.messageID)
    }

    /// Deletes one of our messages for everyone (docs/spec/protocol.md §6.7): posts an encrypted
    /// tombstone naming the message's payload id in its channel — only a tombstone from its
    /// sender makes other devices erase a message — and, once the server took it, erases the
    /// message here and deletes the server's copy. Queued in channel order like any message;
    /// the report is the tombstone's (a message without a readable payload has no tombstone:
    /// then only the server's copy is deleted, a `.delete` entry).
    /// - Throws: ``MessagingError/notOwnMessage(_:)``, as ``send(text:to:replyTo:)``.
    @discardableResult
    public func delete(_ messageID: MessageID) async throws -> SendReport {
        let message = try await ownMessage(messageID)
        if let payloadID = Self.payloadID(of: message) {
            let tombstone = try makePayload(text: "", editOf: nil, replyTo: nil, with: try await directMessageParticipant(ChannelID(stored: message.channelID)),
                                            deleteOf: payloadID)
            return try await queueReporting(payload: tombstone, channelID: ChannelID(stored: message.channelID), kind: .message, target: message.messageID)
        }
        // A row without a readable payload cannot be named by a tombstone: only the server's copy goes.
        let entry = try await store.queueOutgoingMessage(OutgoingCommit(
            localID: UUID().uuidString.lowercased(), channelID: message.channelID, content: "", plaintext: SecretBytes(copying: []),
            queuedAt: configuration.now(), kind: .delete, targetMessageID: message.messageID))
        publishQueued(entry)
        await outbox.kick(channelID: ChannelID(stored: entry.channelID))
        return SendReport(entry, recipients: RecipientChanges())
    }

    /// Retries a `.failed` entry: a draft that could not be encrypted is encrypted now; a
    /// message whose sends failed is resent with the same bytes. The report gives the state
    /// when the call returned (`.queued`, or `.failed` again when it still cannot be
    /// encrypted) and, for a draft encrypted now, what the recipient check surfaced.
    /// - Throws: ``MessagingError/unknownOutboxEntry(_:)``, as ``send(text:to:replyTo:)``.
    @discardableResult
    public func retry(_ localID: OutboxEntryID) async throws -> SendReport {
        guard let entry = try await store.read({ [store] db in try store.outboxStore.loadOutboxMessage(localID: localID.rawValue, db) }),
              entry.state == .failed else {
            throw MessagingError.unknownOutboxEntry(localID.rawValue)
        }
        if entry.content.isEmpty, entry.kind != .delete {
            // What made encryption fail (no devices, stale members) may have changed: re-read.
            await directory.invalidate()
            try await channelDirectory.markMembersStale(channelID: ChannelID(stored: entry.channelID))
            let channel = try await channelDirectory.channel(id: ChannelID(stored: entry.channelID))
            try await prepareToSend(channelID: channel.id, waitingOutRateLimits: false)
            let (queued, changes) = try await composer.queueReporting(
                .init(localID: localID, payload: entry.plaintext, kind: entry.kind, target: entry.targetMessageID, replacesDraft: true), in: channel)
            publishQueued(queued, isNew: false)
            await outbox.kick(channelID: ChannelID(stored: queued.channelID))
            return SendReport(queued, recipients: changes)
        }
        try await outbox.retry(localID: localID)
        let current = try await store.read { [store] db in try store.outboxStore.loadOutboxMessage(localID: localID.rawValue, db) }
        return SendReport(current ?? entry, recipients: RecipientChanges())
    }

    /// Our own message seen on the server (socket echo or REST page): the outbox records it
    /// delivered, reconciles an unanswered POST, or deletes a second copy. Returns `false` when
    /// this device never sent it (the receive pipeline then treats it as a forgery).
    /// - Throws: ``ServerError`` (deleting a copy), key store errors.
    func ownMessageSeen(_ message: ServerMessage) async throws -> Bool {
        try await outbox.ownMessageSeen(message)
    }

    /// The outbox entries in `states` (default: everything not yet sent), per channel in
    /// sending order, without their plaintexts.
    /// - Throws: key store errors.
    public func outboxEntries(states: Set<OutboxState> = [.queued, .sending, .failed]) async throws -> [OutboxItem] {
        try await OutboxItem.entries(in: store, states: states)
    }

    /// Waits until the outbox has nothing left to post right now, retries included (an
    /// unreachable server is tried on the outbox policy's schedule before its entries wait).
    public func waitForOutbox() async {
        await outbox.waitUntilIdle()
    }

    /// Waits until every message in the outbox was posted, refused, or found the server
    /// unreachable: then it stays `.queued` and goes out in order once the server answers,
    /// without anyone waiting for it. What a command-line `send` waits for; it never waits out
    /// the retry schedule of a dead server.
    public func waitForOutboxToSettle() async {
        await outbox.waitUntilSettled()
    }

    /// Encrypts and queues a payload; reports the entry (a failed draft when it cannot be
    /// encrypted) and what the recipient check surfaced (docs/spec/protocol.md §5).
    func queueReporting(payload: SecretBytes, channelID: ChannelID, kind: OutboxKind, target: String?) async throws -> SendReport {
        let channel = try await channelDirectory.channel(id: channelID)
        try await requireAccepted(channel.id)
        // A login that must link queues nothing, not even a draft (§10.24).
        try await store.requireLinked()
        let localID = UUID().uuidString.lowercased()
        let entry: OutboxMessage
        let changes: RecipientChanges
        do {
            if let away = serverAway {
                // docs/spec/sync.md §12: no network I/O while the server is away; the outbox
                // checks the recipients and encrypts once the server answers.
                let draft = try await queueWaitingDraft(localID: OutboxEntryID(stored: localID), payload: payload, channelID: channel.id, kind: kind, target: target,
                                                        reason: "unreachable: \(away)", tryNow: false)
                return SendReport(draft, recipients: RecipientChanges())
            }
            if try await store.hasWaitingDraft(channelID: channel.id.rawValue) {
                // Encrypted now, it would go out before the earlier message still waiting.
                let draft = try await queueWaitingDraft(localID: OutboxEntryID(stored: localID), payload: payload, channelID: channel.id, kind: kind, target: target,
                                                        reason: "waiting behind an earlier message")
                return SendReport(draft, recipients: RecipientChanges())
            }
            try await prepareToSend(channelID: channel.id, waitingOutRateLimits: false)
            (entry, changes) = try await composer.queueReporting(
                .init(localID: OutboxEntryID(stored: localID), payload: payload, kind: kind, target: target, replacesDraft: false), in: channel)
        } catch let error as KeyStoreError {
            throw error
        } catch MessagingError.linkingRequired {
            // Our own listing, read for this send, made this device unlinked (§10.25): as for a
            // login that must link, nothing is queued.
            throw MessagingError.linkingRequired
        } catch let error where SendFailure.waitsBeforeEncrypting(error) {
            // docs/spec/sync.md "Outbox": unreachable or rate limited is not failed; encrypted once the server answers.
            let draft = try await queueWaitingDraft(localID: OutboxEntryID(stored: localID), payload: payload, channelID: channel.id, kind: kind, target: target,
                                                    reason: "unreachable: \(error)")
            return SendReport(draft, recipients: RecipientChanges())
        } catch {
            // T12: never plaintext, never silently dropped.
            let draft = try await store.storeUnencryptableDraft(localID: localID, channelID: channel.id.rawValue, plaintext: payload, kind: kind,
                                                                targetMessageID: target, error: String(describing: error), at: configuration.now())
            broadcaster.publishDelivery(of: draft, .failed, isNew: true)
            return SendReport(draft, recipients: RecipientChanges(error))
        }
        publishQueued(entry)
        await outbox.kick(channelID: channel.id)
        return SendReport(entry, recipients: changes)
    }

    /// `entry` is queued: its delivery event and, for a message, its local echo (`isNew`: it
    /// enters the timeline).
    private func publishQueued(_ entry: OutboxMessage, isNew: Bool = true) {
        broadcaster.publishDelivery(of: entry, .queued, isNew: isNew)
    }

    private func ownMessage(_ messageID: MessageID) async throws -> TimelineMessage {
        guard let message = try await store.message(id: messageID.rawValue), message.isOwn, message.state == .decrypted else {
            throw MessagingError.notOwnMessage(messageID.rawValue)
        }
        return message
    }

    /// The payload id of one of our stored messages (its plaintext is the payload JSON).
    static func payloadID(of message: TimelineMessage) -> String? {
        guard let plaintext = message.plaintext else { return nil }
        return (try? MessagePayload(json: plaintext))?.id.text
    }

    /// The payload of a message; in a DM, `with` names its other participant as this device fixed
    /// it, so our other devices fix it from our own message (docs/spec/protocol.md §5.10, §6.1).
    /// A new payload id unless `id` is given (an edit keeps its message's).
    func makePayload(text: String, id: String? = nil, editOf: String?, replyTo: MessageID?, with: UserID?, deleteOf: String? = nil,
                     announcement: PayloadAnnouncement? = nil) throws -> SecretBytes {
        do {
            let payload = try MessagePayload(
                id: WireUUID(text: id ?? UUID().uuidString.lowercased()), timestamp: configuration.now().microseconds / 1000, text: text,
                editOf: try editOf.map { try WireUUID(text: $0) }, replyTo: try replyTo.map { try WireUUID(text: $0.rawValue) },
                with: try with.map { try WireUUID(text: $0.rawValue) }, deleteOf: try deleteOf.map { try WireUUID(text: $0) },
                announcement: announcement)
            return payload.encodedJSON()
        } catch {
            throw MessagingError.invalidMessage(String(describing: error))
        }
    }
}
