import E2EECrypto
@_spi(StoreInternals) import E2EEKeyStore

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

    /// The receiving sender-key states the batch's group envelopes name, as the store held
    /// them when the batch was planned (`nil`: none stored), for the lanes to start from.
    var senderKeys: [SenderKeyAddress: ReceiverSenderKey?] = [:]

    /// Plans `messages` of `channel` against the store's dedupe set, read in one snapshot with
    /// the sender keys the batch names; `ownEchoes` are the ids the outbox recognised as ours.
    /// - Throws: store errors.
    static func make(_ messages: [ServerMessage], channel: ReceivingChannel, ownEchoes: Set<MessageID> = [], store: KeyStore) async throws -> ReceivePlan {
        var plan = ReceivePlan()
        // Each id's copies, by their position in `messages`. Nearly every id comes once: it then
        // costs one set insertion, and no array or copy of its own.
        var seen: Set<String> = []
        seen.reserveCapacity(messages.count)
        var messagePositions: [Int] = []  // per id, in order of first arrival: the copy that is the message
        var repeated: [String: [Int]] = [:]  // ids that came more than once: their later copies, in arrival order
        for position in messages.indices {
            guard messages[position].channelID == channel.id else {
                plan.outcomes.append(ReceiveOutcome(messageID: messages[position].id, result: .refused(.wrongChannel)))
                plan.refusals.append(.inputRefused(reason: "message delivered for another channel"))
                continue
            }
            if seen.insert(messages[position].id.rawValue).inserted {
                messagePositions.append(position)
            } else {
                repeated[messages[position].id.rawValue, default: []].append(position)
            }
        }
        // The unedited copy (or the earliest edit) of each id is the message; later contents are edits.
        var laterCopies: [Int: [Int]] = [:]  // by place in `messagePositions`: the id's other copies, in that order
        if !repeated.isEmpty {
            for slot in messagePositions.indices {
                guard let more = repeated[messages[messagePositions[slot]].id.rawValue] else { continue }
                let sorted = ([messagePositions[slot]] + more).sorted {
                    (messages[$0].editedAt?.microseconds ?? .min) < (messages[$1].editedAt?.microseconds ?? .min)
                }
                messagePositions[slot] = sorted[0]
                laterCopies[slot] = Array(sorted.dropFirst())
            }
        }
        // Each message's content hash and header, computed over the cores (`firsts[slot]` is
        // `messages[messagePositions[slot]]`).
        let firsts = await ParallelWork.map(messagePositions) { position in
            IncomingMessage(posted: messages[position], channel: channel,
                            isOwnEcho: !ownEchoes.isEmpty && ownEchoes.contains(messages[position].id))
        }
        // The envelopes' hashes and the sender keys their headers name, read with the dedupe set.
        var envelopeDigests: Set<ContentDigest> = []
        var addresses: Set<SenderKeyAddress> = []
        for index in firsts.indices where firsts[index].isEnvelope {  // by index: no copy of each message
            envelopeDigests.insert(firsts[index].digest)
            if let keyID = firsts[index].groupKeyID {
                addresses.insert(SenderKeyAddress(channelID: channel.id.rawValue, senderDeviceID: firsts[index].laneKey, keyID: keyID))
            }
        }
        let lookup = try await store.receiveBatchLookup(ids: firsts.map(\.id), channelID: channel.id.rawValue,
                                                        contentHashes: Array(envelopeDigests), senderKeys: Array(addresses))
        for address in addresses { plan.senderKeys[address] = .some(lookup.senderKeys[address]) }
        var fresh: [Int] = []  // the slots of `firsts` not stored yet
        fresh.reserveCapacity(firsts.count)
        for slot in firsts.indices {
            let storedHash = lookup.knownHashes[firsts[slot].id]
            if storedHash == nil { fresh.append(slot) }
            let later = laterCopies[slot] ?? []
            guard storedHash != nil || !later.isEmpty else { continue }
            // A copy is a duplicate when its content is the id's stored one (compared by hash) or,
            // for an id not stored, the message's; or when an earlier copy of the batch already
            // brought that content as an edit. Any other content is an edit. A stored id's
            // message copy is judged like the rest.
            var edited = EditedContents()
            for position in (storedHash == nil ? [] : [messagePositions[slot]]) + later {
                let copy = messages[position]
                let isFirstContent = copy.content == firsts[slot].content
                let isKnownContent = if let storedHash {
                    (isFirstContent ? firsts[slot].contentHash : SHA256.hash(utf8: copy.content)) == storedHash
                } else {
                    isFirstContent
                }
                if isKnownContent || edited.contains(copy.content) {
                    plan.outcomes.append(ReceiveOutcome(messageID: MessageID(stored: firsts[slot].id), result: .duplicate(of: nil)))
                } else {
                    edited.insert(copy.content)
                    plan.edits.append(copy)
                }
            }
        }
        fresh.sort { (firsts[$0].createdAt.microseconds, firsts[$0].id) < (firsts[$1].createdAt.microseconds, firsts[$1].id) }
        // A copy of bytes seen earlier in this batch is in the first copy's lane (the envelope's
        // device), after it: there it is a duplicate unless the first was refused (a refusal
        // may come from forged metadata around genuine bytes, so the copy gets its own chance).
        var seenInBatch: Set<ContentDigest> = []
        for slot in fresh {  // each message is copied once, into its lane
            if firsts[slot].isEnvelope, let first = lookup.firstIDs[firsts[slot].digest] {
                plan.outcomes.append(ReceiveOutcome(messageID: MessageID(stored: firsts[slot].id), result: .duplicate(of: first)))
                plan.duplicateWrites.append(firsts[slot].duplicateWrite(of: first))
                continue
            }
            var message = firsts[slot]
            if message.isEnvelope { message.hasEarlierCopy = !seenInBatch.insert(message.digest).inserted }
            plan.lanes[message.laneKey, default: []].append(message)
        }
        return plan
    }
}

/// The contents the copies of one id have brought as edits so far, in a batch's plan. Nearly
/// every id has one copy, and then nothing is kept or hashed; a few are scanned in order; past
/// ``scanLimit`` they move into a hashed set, so that a batch of many copies of one id (a
/// server's doing) costs linear time, not quadratic.
struct EditedContents {
    /// Contents kept in the scanned list before the set takes over.
    static let scanLimit = 16

    private var scanned: [String] = []
    private var hashed: Set<String> = []

    /// Whether `content` was inserted before.
    func contains(_ content: String) -> Bool {
        hashed.isEmpty ? scanned.contains(content) : hashed.contains(content)
    }

    /// Remembers `content`.
    mutating func insert(_ content: String) {
        if hashed.isEmpty {
            if scanned.count < Self.scanLimit {
                scanned.append(content)
                return
            }
            hashed = Set(scanned)
            scanned = []
        }
        hashed.insert(content)
    }
}
