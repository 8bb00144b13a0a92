import E2EECrypto
import E2EEKeyStore

/// The deterministic merge of a batch (STYLE 12): messages of another channel refused, copies
/// of one id folded (the first copy is the message, later different contents are edits),
/// known ids answered from the store (same content: duplicate; other content: an edit),
/// the rest sorted by `(created_at, id)`, envelopes already stored under another id linked as
/// duplicates, and what remains split into lanes per sender device — the device inside the
/// envelope, whose keys the lane advances (a copy of bytes earlier in the batch is in the
/// first copy's lane, which decides).
struct ReceivePlan: Sendable {
    /// Outcomes decided here.
    var outcomes: [ReceiveOutcome] = []
    /// Public refusals to tell the app.
    var refusals: [AccountEvent] = []
    /// Duplicate rows to store (one transaction).
    var duplicateWrites: [ReceiveWrite] = []
    /// The new messages per sender device, each in timeline order.
    var lanes: [String: [IncomingMessage]] = [:]
    /// Copies whose content replaces a stored (or earlier) message's: edits, in arrival order.
    var edits: [ServerMessage] = []

    /// Plans `messages` of `channel` against the store's dedupe set.
    /// - Throws: store errors.
    static func make(_ messages: [ServerMessage], channel: ReceivingChannel, store: KeyStore) async throws -> ReceivePlan {
        var plan = ReceivePlan()
        var copies: [String: [ServerMessage]] = [:]
        var order: [String] = []
        for message in messages {
            guard message.channelID == channel.id else {
                plan.outcomes.append(ReceiveOutcome(messageID: message.id, result: .refused(.wrongChannel)))
                plan.refusals.append(.inputRefused(reason: "message delivered for another channel"))
                continue
            }
            if copies[message.id] == nil { order.append(message.id) }
            copies[message.id, default: []].append(message)
        }
        let known = try await store.receivedMessages(ids: order)
        var fresh: [ServerMessage] = []
        for id in order {
            // The unedited copy (or the earliest edit) is the message; later contents are edits.
            let sorted = (copies[id] ?? []).sorted { ($0.editedAt?.microseconds ?? .min) < ($1.editedAt?.microseconds ?? .min) }
            guard let first = sorted.first else { continue }
            var contents: Set<String> = []
            var later = sorted[...]
            if let stored = known[id] {
                contents.formUnion(sorted.filter { SHA256.hash(Array($0.content.utf8)) == stored.message.contentHash }.map(\.content))
            } else {
                fresh.append(first)
                contents.insert(first.content)
                later = sorted.dropFirst()
            }
            for copy in later {
                if contents.contains(copy.content) {
                    plan.outcomes.append(ReceiveOutcome(messageID: id, result: .duplicate(of: nil)))
                } else {
                    contents.insert(copy.content)
                    plan.edits.append(copy)
                }
            }
        }
        fresh.sort(by: ServerMessage.timelineOrder)
        let incoming = fresh.map { IncomingMessage(posted: $0, channel: channel) }
        let envelopes = incoming.filter { $0.protocolVersion == 2 && EnvelopeKind(rawValue: $0.contentType) != nil }
        let stored = try await store.firstMessageIDs(channelID: channel.id, contentHashes: Array(Set(envelopes.map(\.contentHash))))
        // A copy of bytes seen earlier in this batch is in the first copy's lane (the envelope's
        // device), after it: there it is a duplicate unless the first was refused (a refusal
        // may come from forged metadata around genuine bytes, so the copy gets its own chance).
        var seenInBatch: Set<[UInt8]> = []
        for var message in incoming {
            let isEnvelope = message.protocolVersion == 2 && EnvelopeKind(rawValue: message.contentType) != nil
            if isEnvelope, let first = stored[message.contentHash] {
                plan.outcomes.append(ReceiveOutcome(messageID: message.id, result: .duplicate(of: first)))
                plan.duplicateWrites.append(message.duplicateWrite(of: first))
                continue
            }
            if isEnvelope { message.hasEarlierCopy = !seenInBatch.insert(message.contentHash).inserted }
            plan.lanes[message.laneKey, default: []].append(message)
        }
        return plan
    }
}
