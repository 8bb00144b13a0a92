import E2EECrypto
@_spi(StoreInternals) @testable import E2EEKeyStore
import Foundation
import GRDB
import Testing

/// Schema `v4` and the receive pipeline's operations.
@Suite struct ReceivingStoreTests {
    private func decrypted(_ id: String, at micros: Int64, text: String, payloadID: String?, user: String = "user-b",
                           identity: RemoteIdentityClaim? = nil) -> ReceiveWrite {
        var row = Fixtures.message(id, at: micros, plaintext: text)
        row.senderUserID = user
        return ReceiveWrite(action: .decrypted(DecryptionCommit(message: row, identity: identity, processedAt: Fixtures.time(2))),
                            facts: ReceivedFacts(kind: .message, payloadID: payloadID))
    }

    @Test func v3FileMigratesToV4WithItsRowsAsMessages() async throws {
        let dir = try TemporaryDirectory()
        let key = StoreKey.random()
        let sealer = Sealer(key: key)
        let queue = try DatabaseQueue(path: dir.storeURL.path, configuration: KeyStore.configuration())
        try StoreSchema.migrator.migrate(queue, upTo: "v3")
        try await queue.write { db in
            try StoreMetadata.create(db, source: .raw, salt: nil, parameters: nil, sealer: sealer, now: 1)
            try TimelineStore(sealer: sealer).storeMessage(Fixtures.message("m1", at: 10, plaintext: "from v3"), db)
        }
        try queue.close()
        let store = try KeyStore.open(at: dir.storeURL, key: key)
        let row = try #require(try await store.receivedMessage(id: "m1"))
        #expect(row.facts == ReceivedFacts(kind: .message))
        #expect(Fixtures.text(row.message.plaintext) == "from v3")
        #expect(try await store.receivedTimelinePage(channelID: "channel-1").map(\.message.messageID) == ["m1"])
        let tables = try await store.read { db in try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table'") }
        #expect(tables.contains("refused_inputs"))
        try store.close()
    }

    @Test func receivedPageQueryUsesTheIndexWithoutSorting() async throws {
        let store = try KeyStore.inMemory()
        let plan = try await store.read { db in
            try Row.fetchAll(db, sql: """
                EXPLAIN QUERY PLAN SELECT * FROM timeline WHERE channel_id = ? AND kind = 'message' AND (created_at, message_id) < (?, ?)
                ORDER BY created_at DESC, message_id DESC LIMIT ?
                """, arguments: ["c", 1, "m", 50]).map { $0["detail"] as String? ?? "" }
        }
        #expect(plan.contains { $0.contains("timeline_page") })
        #expect(!plan.contains { $0.contains("TEMP B-TREE") })
    }

    @Test func batchIsAllOrNothing() async throws {
        let store = try KeyStore.inMemory()
        _ = try await store.recordIdentity(RemoteIdentityClaim(userID: "user-b", deviceID: "device-b", identityBlob: Fixtures.bytes(65, 1)))
        let conflicting = RemoteIdentityClaim(userID: "user-b", deviceID: "device-b", identityBlob: Fixtures.bytes(65, 2))
        let batch = [decrypted("m1", at: 1, text: "one", payloadID: "p1"), decrypted("m2", at: 2, text: "two", payloadID: "p2", identity: conflicting)]
        await #expect(throws: KeyStoreError.self) { try await store.storeReceiveBatch(batch) }
        #expect(try await store.receivedMessages(ids: ["m1", "m2"]).isEmpty)
    }

    @Test("a decryption that fixes a DM's participants stores them with its row, accepts the DM, and never re-fixes them; a failed batch fixes nothing")
    func participantsFixedWithTheRow() async throws {
        let store = try KeyStore.inMemory()
        func participants() async throws -> Set<String> {
            try await store.read { db in try store.recipientStore.loadParticipants(channelID: "channel-1", db) }
        }
        try await store.write { db in
            _ = try store.channelTrustStore.pin(ChannelPin(channelID: "channel-1", isDM: true, standing: .request, pinnedAt: Fixtures.time(0)), db)
        }
        // In a batch that fails (an identity that differs from its pin), nothing is fixed.
        _ = try await store.recordIdentity(RemoteIdentityClaim(userID: "user-b", deviceID: "device-b", identityBlob: Fixtures.bytes(65, 1)))
        var fixing = decrypted("m1", at: 1, text: "hi", payloadID: "p1", user: "user-a")
        fixing.fixesParticipants = ["user-a", "user-b"]
        let conflicting = RemoteIdentityClaim(userID: "user-b", deviceID: "device-b", identityBlob: Fixtures.bytes(65, 2))
        await #expect(throws: KeyStoreError.self) {
            try await store.storeReceiveBatch([fixing, self.decrypted("m2", at: 2, text: "x", payloadID: "p2", identity: conflicting)])
        }
        #expect(try await participants().isEmpty)

        #expect(try await store.storeReceiveBatch([fixing]) == [.stored])
        #expect(try await participants() == ["user-a", "user-b"])
        #expect(try await store.read { db in try store.channelTrustStore.loadPin(channelID: "channel-1", db)?.standing } == .accepted)
        var other = decrypted("m3", at: 3, text: "hi", payloadID: "p3", user: "user-a")
        other.fixesParticipants = ["user-a", "user-c"]
        _ = try await store.storeReceiveBatch([other])
        #expect(try await participants() == ["user-a", "user-b"], "fixed once, for good")
    }

    @Test func reusedPayloadIDBecomesADuplicateOfTheFirst() async throws {
        let store = try KeyStore.inMemory()
        let results = try await store.storeReceiveBatch([
            decrypted("m1", at: 1, text: "first", payloadID: "p1"),
            decrypted("m2", at: 2, text: "second", payloadID: "p1"),
            decrypted("m3", at: 3, text: "other user", payloadID: "p1", user: "user-c"),
        ])
        #expect(results == [.stored, .duplicateOfPayload("m1"), .stored])
        let second = try #require(try await store.receivedMessage(id: "m2"))
        #expect(second.facts == ReceivedFacts(kind: .duplicate, duplicateOf: "m1"))
        #expect(second.message.plaintext == nil)
        #expect(try await store.receivedTimelinePage(channelID: "channel-1").map(\.message.messageID) == ["m1", "m3"])
        // The key store's own page and count hide the duplicate row too.
        #expect(try await store.timelinePage(channelID: "channel-1").map(\.messageID) == ["m1", "m3"])
        #expect(try await store.messageCount(channelID: "channel-1") == 2)
        #expect(try await store.messageCount(channelID: "channel-1", state: .undecryptable(reason: "any")) == 0)
    }

    @Test func finalRowsAreNeverDowngradedAndPendingRowsAreUpdated() async throws {
        let store = try KeyStore.inMemory()
        _ = try await store.storeReceiveBatch([decrypted("m1", at: 1, text: "readable", payloadID: "p1")])
        let pending = ReceiveWrite(action: .pending(Fixtures.message("m1", at: 1, state: .pendingKey), content: "env", waitingFor: "k", receivedAt: Fixtures.time(1)),
                                   facts: ReceivedFacts(kind: .message))
        let refused = ReceiveWrite(action: .outcome(Fixtures.message("m1", at: 1, state: .undecryptable(reason: "bad_tag"))), facts: ReceivedFacts(kind: .message))
        #expect(try await store.storeReceiveBatch([pending, refused]) == [.unchanged, .unchanged])
        #expect(Fixtures.text(try await store.receivedMessage(id: "m1")?.message.plaintext) == "readable")

        let waiting = ReceiveWrite(action: .pending(Fixtures.message("m2", at: 2, state: .pendingKey), content: "env", waitingFor: "k1", receivedAt: Fixtures.time(1)),
                                   facts: ReceivedFacts(kind: .control))
        let rewaiting = ReceiveWrite(action: .pending(Fixtures.message("m2", at: 2, state: .pendingKey), content: "env2", waitingFor: "k2", receivedAt: Fixtures.time(2)),
                                     facts: ReceivedFacts(kind: .control))
        #expect(try await store.storeReceiveBatch([waiting]) == [.stored])
        #expect(try await store.storeReceiveBatch([rewaiting]) == [.stored])
        let queued = try await store.pendingReceives()
        #expect(queued.map(\.pending.waitingFor) == ["k2"])
        #expect(queued.map(\.kind) == [.control])
        #expect(try await store.pendingReceives(waitingFor: ["k1"]).isEmpty)
        #expect(try await store.receivedTimelinePage(channelID: "channel-1").map(\.message.messageID) == ["m1"])
        #expect(try await store.timelinePage(channelID: "channel-1").map(\.messageID) == ["m1"])
        #expect(try await store.messageCount(channelID: "channel-1", state: .pendingKey) == 0)
    }

    @Test func tombstonesEraseOnlyTheirSendersMessageInTheirChannel() async throws {
        let store = try KeyStore.inMemory()
        _ = try await store.storeReceiveBatch([decrypted("m1", at: 1, text: "bye", payloadID: "p1")])
        #expect(try await store.storeReceiveBatch([
            ReceiveWrites.tombstone("t-elsewhere", deleting: "p1", channel: "channel-2", at: 2),
            ReceiveWrites.tombstone("t-other-user", deleting: "p1", user: "user-c", at: 2),
        ]) == [.stored, .stored])
        #expect(Fixtures.text(try await store.receivedMessage(id: "m1")?.message.plaintext) == "bye")
        #expect(try await store.storeReceiveBatch([ReceiveWrites.tombstone("t1", deleting: "p1", at: 3)]) == [.storedErasing("m1")])
        #expect(try await store.storeReceiveBatch([ReceiveWrites.tombstone("t1-again", deleting: "p1", at: 4)]) == [.stored])
        #expect(try await store.receivedMessage(id: "m1")?.message.plaintext == nil)
        // A tombstone before its message: the message is stored erased, and a late copy stays so.
        _ = try await store.storeReceiveBatch([ReceiveWrites.tombstone("t9", deleting: "p9", at: 5)])
        #expect(try await store.storeReceiveBatch([decrypted("m9", at: 9, text: "late", payloadID: "p9")]) == [.storedErased])
        _ = try await store.storeReceiveBatch([decrypted("m9", at: 9, text: "late again", payloadID: "p9")])
        let erased = try #require(try await store.receivedMessage(id: "m9"))
        #expect(erased.message.state == .deleted && erased.facts.kind == .message && erased.message.plaintext == nil)
        #expect(try await store.receivedTimelinePage(channelID: "channel-1").map(\.message.messageID) == ["m1", "m9"])
        #expect(try await store.receivedTimelinePage(channelID: "channel-1").map(\.message.state) == [.deleted, .deleted])
    }

    /// Lookups run statements of a few widths (a frame's single id, a few, a page's 50): every
    /// count on and around those widths finds exactly the stored ids and hashes asked for.
    @Test func lookupsOfEveryWidthFindExactlyTheStoredRows() async throws {
        let store = try KeyStore.inMemory()
        let stored = (0..<120).map { index in
            var message = Fixtures.message("m\(index)", at: Int64(index), plaintext: "text \(index)")
            message.contentHash = Fixtures.hash("envelope \(index)")
            return message
        }
        _ = try await store.storeReceiveBatch(stored.map { ReceiveWrite(action: .decrypted(DecryptionCommit(message: $0)), facts: ReceivedFacts(kind: .message)) })
        for count in [1, 2, 7, 8, 9, 49, 50, 51, 100, 101] {
            // Every other id asked for is stored; the rest are unknown.
            let ids = (0..<count).map { $0.isMultiple(of: 2) ? "m\($0)" : "unknown-\($0)" }
            let expected = Set(ids.filter { $0.hasPrefix("m") })
            #expect(Set(try await store.receivedMessages(ids: ids).keys) == expected, "\(count) ids")
            let lookup = try await store.receiveBatchLookup(ids: ids, channelID: "channel-1", contentHashes: [], senderKeys: [])
            #expect(lookup.knownHashes == Dictionary(uniqueKeysWithValues: expected.map { ($0, Fixtures.hash("envelope \($0.dropFirst())")) }),
                    "\(count) ids, with their hashes")
            let hashes = (0..<count).map { Fixtures.hash($0.isMultiple(of: 2) ? "envelope \($0)" : "unknown \($0)") }
            let found = try await store.firstMessageIDs(channelID: "channel-1", contentHashes: hashes.map(ContentDigest.init))
            #expect(Set(found.values) == expected, "\(count) hashes")
        }
    }

    @Test func contentHashLookupFindsTheFirstReadableCopy() async throws {
        let store = try KeyStore.inMemory()
        var refused = Fixtures.message("m0", at: 0, state: .undecryptable(reason: "sender_mismatch"))
        refused.contentHash = Fixtures.hash("env")
        var first = Fixtures.message("m1", at: 1, plaintext: "x")
        first.contentHash = Fixtures.hash("env")
        _ = try await store.storeReceiveBatch([ReceiveWrite(action: .outcome(refused), facts: ReceivedFacts(kind: .message)),
                                               ReceiveWrite(action: .decrypted(DecryptionCommit(message: first)), facts: ReceivedFacts(kind: .message))])
        let env = ContentDigest(Fixtures.hash("env"))
        let found = try await store.firstMessageIDs(channelID: "channel-1", contentHashes: [env, ContentDigest(Fixtures.hash("none"))])
        #expect(found == [env: "m1"])
        #expect(try await store.firstMessageIDs(channelID: "channel-2", contentHashes: [env]).isEmpty)
    }

    @Test func contentHashLookupComparesWholeHashesBehindASharedPrefix() async throws {
        let store = try KeyStore.inMemory()
        // Two envelopes whose hashes share the 8 bytes the index holds; one more in another channel.
        let prefix = [UInt8](repeating: 0xAB, count: 8)
        let hashA = ContentDigest(prefix + [UInt8](repeating: 1, count: 24))
        let hashB = ContentDigest(prefix + [UInt8](repeating: 2, count: 24))
        var rowA = Fixtures.message("mA", at: 1, plaintext: "a")
        rowA.contentHash = hashA.bytes
        var rowB = Fixtures.message("mB", at: 2, plaintext: "b")
        rowB.contentHash = hashB.bytes
        var elsewhere = Fixtures.message("mC", at: 0, plaintext: "c")
        elsewhere.channelID = "channel-2"
        elsewhere.contentHash = hashA.bytes
        _ = try await store.storeReceiveBatch([rowA, rowB, elsewhere].map { ReceiveWrite(action: .decrypted(DecryptionCommit(message: $0)), facts: ReceivedFacts(kind: .message)) })
        #expect(try await store.firstMessageIDs(channelID: "channel-1", contentHashes: [hashA]) == [hashA: "mA"])
        #expect(try await store.firstMessageIDs(channelID: "channel-1", contentHashes: [hashB, hashA]) == [hashA: "mA", hashB: "mB"])
        #expect(try await store.firstMessageIDs(channelID: "channel-1", contentHashes: [ContentDigest(prefix + [UInt8](repeating: 3, count: 24))]).isEmpty)
        #expect(try await store.firstMessageIDs(channelID: "channel-2", contentHashes: [hashA, hashB]) == [hashA: "mC"])
    }

    /// Since `v25` the envelope-hash lookup seeks the channel's slice of the index and each
    /// prefix in it (both columns constrained), so that a catch-up's inserts land in its
    /// channel's slice instead of anywhere in the store.
    @Test func contentHashLookupSeeksTheChannelsSliceOfThePrefixIndex() async throws {
        let store = try KeyStore.inMemory()
        let plan = try await store.read { db in
            let prefixes: [(any DatabaseValueConvertible)?] = (0..<KeyStore.lookupWidth).map { Data([UInt8($0)]) }
            return try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN " + KeyStore.contentLookupSQL, arguments: StatementArguments(prefixes + ["c", "c"]))
                .map { $0["detail"] as String? ?? "" }
        }
        #expect(plan.contains { $0.contains("timeline_by_channel_content (<expr>=? AND <expr>=?)") }, "\(plan)")
        let indexes = try await store.read { db in
            try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'timeline' AND sql IS NOT NULL")
        }
        #expect(!indexes.contains("timeline_by_content") && !indexes.contains("timeline_by_content_prefix"))
    }

    /// Since `v25` one sender user's payload keys share their first bytes (one slice of
    /// `timeline_payload_key`), and still name one pair each.
    @Test func oneSendersPayloadKeysShareASlice() throws {
        let part = StoreSchema.payloadSenderPartLength
        let a1 = try #require(StoreSchema.payloadKey(senderUserID: "user-a", payloadID: "p-1"))
        let a2 = try #require(StoreSchema.payloadKey(senderUserID: "user-a", payloadID: "p-2"))
        let b1 = try #require(StoreSchema.payloadKey(senderUserID: "user-b", payloadID: "p-1"))
        #expect(a1.prefix(part) == a2.prefix(part))
        #expect(a1.prefix(part) != b1.prefix(part))
        #expect(a1 != a2 && a1 != b1 && a1.count == StoreSchema.payloadKeyLength)
        #expect(a1 != StoreSchema.payloadKeyV14(senderUserID: "user-a", payloadID: "p-1"))
    }

    @Test func pendingRowsPageInTimelineOrder() async throws {
        let store = try KeyStore.inMemory()
        let writes = [("m3", 3), ("m1", 1), ("m2b", 2), ("m2a", 2)].map { id, at in
            ReceiveWrite(action: .pending(Fixtures.message(id, at: Int64(at), state: .pendingKey), content: "env-\(id)", waitingFor: at == 1 ? "k1" : "k2",
                                          receivedAt: Fixtures.time(1)), facts: ReceivedFacts(kind: .message))
        }
        _ = try await store.storeReceiveBatch(writes)
        let first = try await store.pendingReceives(limit: 2)
        #expect(first.map(\.pending.messageID) == ["m1", "m2a"])
        let last = try #require(first.last)
        let rest = try await store.pendingReceives(after: TimelineCursor(createdAt: last.createdAt, messageID: last.pending.messageID), limit: 2)
        #expect(rest.map(\.pending.messageID) == ["m2b", "m3"])
        #expect(try await store.pendingReceives(waitingFor: ["k2"]).map(\.pending.messageID) == ["m2a", "m2b", "m3"])
    }
}
