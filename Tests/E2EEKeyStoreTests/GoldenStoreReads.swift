import E2EECrypto
@_spi(StoreInternals) @testable import E2EEKeyStore
import Foundation
import GRDB

/// Every read the product makes of a store, run on a golden store and written down as text:
/// one entry per read, its result rendered field by field. Secrets (plaintexts, key and session
/// states, tokens) are rendered as their SHA-256, so the recorded expectations hold none.
enum GoldenStoreReads {
    typealias G = GoldenStore

    /// The reads of `store`, by name. Only reads: the store is not changed.
    static func capture(_ store: KeyStore) async throws -> [String: [String]] {
        var reads: [String: [String]] = [:]
        let ids = try await store.read { db in try String.fetchAll(db, sql: "SELECT message_id FROM timeline ORDER BY message_id") }
        let channels = [G.group, G.direct, G.left]
        reads["timeline ids"] = ids

        for channel in channels {
            reads["receivedTimelinePage \(channel)"] = try await store.receivedTimelinePage(channelID: channel).map(render)
            reads["timelinePage \(channel)"] = try await store.timelinePage(channelID: channel).map(render)
            reads["oldestTimelineMessage \(channel)"] = [try await store.oldestTimelineMessage(channelID: channel).map(render) ?? "nil"]
            reads["undeletedMessageIDs \(channel)"] = try await store.undeletedMessageIDs(channelID: channel, after: G.time(2), through: G.time(18)).sorted()
            reads["messageCount \(channel)"] = [String(try await store.messageCount(channelID: channel))]
            for state in [TimelineState.pendingKey, .decrypted, .undecryptable(reason: ""), .unencrypted, .deleted] {
                reads["messageCount \(channel) \(state.columnValue)"] = [String(try await store.messageCount(channelID: channel, state: state))]
            }
            reads["loadCandidate \(channel)"] = [try await store.read { db in
                try store.channelTrustStore.loadCandidate(channelID: channel, ownUserID: G.ownUser, db)
            } ?? "nil"]
        }
        // Walking the group's page back two at a time, as the app scrolls.
        var cursor: TimelineCursor?
        var walked: [String] = []
        while true {
            let page = try await store.receivedTimelinePage(channelID: G.group, before: cursor, limit: 2)
            guard let first = page.first else { break }
            walked.append(page.map(\.message.messageID).joined(separator: ","))
            cursor = first.message.cursor
        }
        reads["receivedTimelinePage \(G.group) by 2"] = walked

        for id in ids + ["unknown"] {
            reads["receivedMessage \(id)"] = [try await store.receivedMessage(id: id).map(render) ?? "nil"]
            reads["message \(id)"] = [try await store.message(id: id).map(render) ?? "nil"]
            reads["refusedInputs \(id)"] = try await store.refusedInputs(messageID: id).map(render)
        }
        reads["receivedMessages"] = try await store.receivedMessages(ids: ids + ["unknown"]).sorted { $0.key < $1.key }.map { "\($0.key) → \(render($0.value))" }
        let hashes = (ids.map { SHA256.hash(Array("envelope \($0)".utf8)) } + [SHA256.hash(Array("unknown".utf8))]).map(ContentDigest.init)
        for channel in channels {
            reads["firstMessageIDs \(channel)"] = try await store.firstMessageIDs(channelID: channel, contentHashes: hashes)
                .map { "\(hex($0.key.bytes)) → \($0.value)" }.sorted()
        }
        let lookup = try await store.receiveBatchLookup(ids: ids, channelID: G.group, contentHashes: hashes, senderKeys: [G.senderKeyB, G.senderKeyC])
        reads["receiveBatchLookup known"] = lookup.knownHashes.keys.sorted()
        reads["receiveBatchLookup firstIDs"] = lookup.firstIDs.map { "\(hex($0.key.bytes)) → \($0.value)" }.sorted()
        reads["receiveBatchLookup senderKeys"] = lookup.senderKeys.values.map(render).sorted()
        reads["knownMessageIDs"] = try await store.knownMessageIDs(ids + ["s-1", "unknown"]).sorted()
        reads["removedFromServer"] = try await store.removedFromServer(messageIDs: ids).sorted()
        reads["deliveryStates"] = try await store.deliveryStates(messageIDs: ids + ["s-1"]).map { "\($0.key) → \($0.value.rawValue)" }.sorted()
        reads["holdsMessage"] = [String(try await store.holdsMessage(id: "g-1", channelID: G.group, contentHash: [])),
                                 String(try await store.holdsMessage(id: "unknown", channelID: G.direct, contentHash: SHA256.hash(Array("dm envelope local-2".utf8))))]

        // The pending queue and its re-drive.
        reads["pendingCount"] = [String(try await store.pendingCount())]
        reads["pendingReceives"] = try await store.pendingReceives().map(render)
        reads["pendingReceives waiting"] = try await store.pendingReceives(waitingFor: ["sender_key:\(G.senderKeyC)"]).map(render)
        reads["pendingReceives after"] = try await store.pendingReceives(after: TimelineCursor(createdAt: G.time(10), messageID: "g-c1"), limit: 10).map(render)

        // Keys, sessions, identities, account, outbox, cursors.
        reads["account"] = [try await store.loadAccount().map { "\($0.serverURL) \($0.userID) \($0.deviceID) \(secret($0.accessToken)) \(secret($0.refreshToken)) \($0.updatedAt)" } ?? "nil"]
        reads["identityKeyPair"] = [try await store.loadIdentityKeyPair().map {
            "\(hex($0.identityPublic)) \(secret($0.identityPrivate)) \(hex($0.signingPublic)) \(secret($0.signingPrivate)) \($0.createdAt)"
        } ?? "nil"]
        reads["deviceSetUpAt"] = [try await store.deviceSetUpAt().map(\.description) ?? "nil"]
        reads["signedPrekeys"] = try await store.signedPrekeys().map {
            "\($0.id) \(hex($0.publicKey)) \(secret($0.privateKey)) \(hex($0.signature)) \($0.isCurrent) \($0.createdAt) \($0.retiredAt.map(\.description) ?? "nil")"
        }
        for state in [OneTimePrekeyState.pendingUpload, .published, .consumed] {
            reads["oneTimePrekeyCount \(state.rawValue)"] = [String(try await store.oneTimePrekeyCount(state: state))]
        }
        let lookups = try await store.prekeyLookup(signedPrekeyID: 1, oneTimePrekeyID: 2, ephemeralKey: [UInt8](repeating: 6, count: 32))
        reads["prekeyLookup"] = ["\(lookups.signedPrekey?.id.description ?? "nil") \(lookups.oneTimePrekey.map { "\($0.id) \($0.state.rawValue) \(secret($0.privateKey))" } ?? "nil") \(lookups.ephemeralKeyAccepted)"]
        for (user, device) in [(G.userB, G.deviceB), (G.userC, G.deviceC)] {
            reads["sessions \(device)"] = try await store.sessions(userID: user, deviceID: device, limit: 40).map(render)
            reads["currentSession \(device)"] = [try await store.currentSession(userID: user, deviceID: device).map(render) ?? "nil"]
            reads["remoteIdentities \(device)"] = try await store.remoteIdentities(deviceID: device).map {
                "\($0.userID) \($0.deviceID) \(hex($0.identityBlob)) \($0.firstSeenAt) \($0.verification.rawValue)"
            }
            reads["identityChanges \(device)"] = try await store.read { db in try store.remoteIdentityStore.loadIdentityChanges(userID: user, db) }.map {
                "\($0.deviceID) \(hex($0.previousBlob)) → \(hex($0.newBlob)) accepted \($0.accepted)"
            }
        }
        let laneKeys = try await store.receiveLaneKeys(devices: [G.deviceB, G.deviceC], sessions: [RemoteDeviceKey(userID: G.userB, deviceID: G.deviceB)],
                                                       sessionLimit: 1)
        reads["receiveLaneKeys"] = laneKeys.pins.map { "\($0.key): \($0.value.map { hex($0.identityBlob) }.joined(separator: ","))" }.sorted()
            + laneKeys.sessions.map { "\($0.key.deviceID): \($0.value.map(render).joined(separator: " | "))" }
        for address in [G.senderKeyB, G.senderKeyC] {
            reads["receiverSenderKey \(address)"] = [try await store.receiverSenderKey(address).map(render) ?? "nil"]
        }
        reads["ownSenderKey"] = [try await store.read { db in try store.ownSenderKeyStore.loadCurrentSenderKey(channelID: G.group, db) }.map {
            "\($0.channelID) \($0.keyID) \(secret($0.state)) \($0.isCurrent) \($0.messagesSent) \($0.createdAt)"
        } ?? "nil"]
        reads["outbox"] = try await store.outbox(states: [.queued, .sending, .sent, .delivered, .failed]).map(render)
        reads["outbox by content"] = try await store.outbox(channelID: G.direct, contentHash: SHA256.hash(Array("dm envelope local-2".utf8))).map(render)
        reads["syncCursor"] = [try await store.syncCursor(channelID: G.group).map {
            "\($0.channelID) \($0.newest.map(render) ?? "nil") \($0.oldest.map(render) ?? "nil") \($0.historyComplete) \($0.updatedAt)"
        } ?? "nil"]
        reads["departed_channels"] = try await store.read { db in
            try Row.fetchAll(db, sql: "SELECT channel_id, left_at, rejoined_at FROM departed_channels ORDER BY channel_id").map { row in
                let rejoined: Int64? = row["rejoined_at"]
                return "\(row["channel_id"] as String? ?? "nil") \(row["left_at"] as Int64? ?? 0) \(rejoined.map(String.init) ?? "nil")"
            }
        }
        return reads
    }

    static func hex(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02x", $0) }.joined() }

    /// A secret as its SHA-256 (never its bytes).
    static func secret(_ value: SecretBytes?) -> String {
        guard let value else { return "nil" }
        return "sha256:" + hex(SHA256.hash(value.unprotectedCopy()))
    }

    static func render(_ cursor: TimelineCursor) -> String { "\(cursor.createdAt)/\(cursor.messageID)" }

    static func render(_ m: TimelineMessage) -> String {
        "\(m.messageID) \(m.channelID) \(m.senderUserID ?? "nil")/\(m.senderDeviceID ?? "nil") \(m.createdAt) \(hex(m.contentHash)) "
            + "\(m.state.columnValue)(\(m.state.reason ?? "")) \(secret(m.plaintext)) own \(m.isOwn)"
    }

    static func render(_ r: ReceivedMessage) -> String {
        "\(render(r.message)) kind \(r.facts.kind.rawValue) payload \(r.facts.payloadID ?? "nil") edited \(r.facts.editedAt.map(\.description) ?? "nil") "
            + "duplicateOf \(r.facts.duplicateOf ?? "nil")"
    }

    static func render(_ input: RefusedInput) -> String {
        "\(input.channelID) \(input.messageID) \(input.kind.rawValue) \(input.reason) \(input.contentHash.map(hex) ?? "nil") \(input.seenAt)"
    }

    static func render(_ p: PendingReceive) -> String {
        "\(p.pending.messageID) \(p.pending.channelID) \(p.pending.senderDeviceID ?? "nil") \(p.pending.content) \(p.pending.waitingFor) "
            + "\(p.pending.receivedAt) \(p.senderUserID ?? "nil") \(p.createdAt) \(p.editedAt.map(\.description) ?? "nil") \(p.kind.rawValue)"
    }

    static func render(_ s: StoredSession) -> String {
        "\(s.id) \(s.remoteUserID)/\(s.remoteDeviceID) current \(s.isCurrent) \(secret(s.state)) \(s.createdAt) \(s.updatedAt)"
    }

    static func render(_ k: ReceiverSenderKey) -> String {
        "\(k.address) \(k.senderUserID) \(secret(k.state)) \(k.createdAt) \(k.updatedAt)"
    }

    static func render(_ o: OutboxMessage) -> String {
        "\(o.localID) \(o.channelID) #\(o.sequence) \(o.content) \(hex(o.contentHash)) \(secret(o.plaintext)) \(o.state.rawValue) attempts \(o.attempts) "
            + "\(o.lastError ?? "nil") \(o.serverMessageID ?? "nil") \(o.createdAt) \(o.updatedAt) \(o.kind.rawValue) \(o.contentType) "
            + "\(o.targetMessageID ?? "nil") answered \(o.answeredFailures)"
    }
}
