import E2EECrypto
@_spi(StoreInternals) @testable import E2EEKeyStore
import Foundation
import Testing

@Suite struct OutboxAndTimelineTests {
    private func queue(_ store: KeyStore, _ localID: String, channel: String = "c") async throws -> OutboxMessage {
        try await store.queueOutgoingMessage(OutgoingCommit(localID: localID, channelID: channel, content: "content \(localID)",
                                                            plaintext: Fixtures.secret("text \(localID)"),
                                                            senderKey: OwnSenderKeyAdvance(keyID: 1, state: Fixtures.secret("after \(localID)")),
                                                            queuedAt: Fixtures.time(1)))
    }

    private func storeWithSenderKey() async throws -> KeyStore {
        let store = try KeyStore.inMemory()
        try await store.storeNewSenderKey(OwnSenderKey(channelID: "c", keyID: 1, state: Fixtures.secret("start"), isCurrent: true, messagesSent: 0, createdAt: Fixtures.time(0)))
        return store
    }

    @Test func queueingAdvancesTheSenderKeyAndStoresContentAndPlaintext() async throws {
        let store = try await storeWithSenderKey()
        let queued = try await queue(store, "l1")
        #expect(queued.state == .queued)
        let key = try await store.read { db in try store.ownSenderKeyStore.loadCurrentSenderKey(channelID: "c", db) }
        #expect(Fixtures.text(key?.state) == "after l1")
        #expect(key?.messagesSent == 1)
        let outbox = try await store.outbox()
        #expect(outbox.map(\.content) == ["content l1"])
        #expect(Fixtures.text(outbox.first?.plaintext) == "text l1")
    }

    @Test func whenTheSenderKeyIsMissing_thenNothingIsQueued() async throws {
        let store = try KeyStore.inMemory()
        await #expect(throws: KeyStoreError.missingRecord(.ownSenderKey, id: "c/1")) { _ = try await queue(store, "l1") }
        #expect(try await store.outbox().isEmpty)
    }

    @Test func queueingAPairwiseMessageAdvancesTheCurrentSessionAndRefusesOneThatIsGone() async throws {
        let store = try KeyStore.inMemory()
        let old = try await store.installSession(userID: "u", deviceID: "d", state: Fixtures.secret("old"), at: Fixtures.time(1))
        let current = try await store.installSession(userID: "u", deviceID: "d", state: Fixtures.secret("current"), at: Fixtures.time(2))
        func commit(_ localID: String, session: String) -> OutgoingCommit {
            OutgoingCommit(localID: localID, channelID: "dm", content: "dm \(localID)", plaintext: Fixtures.secret("text \(localID)"),
                           sessions: [SessionUpdate(userID: "u", deviceID: "d",
                                                    states: [SessionUpdate.State(sessionID: session, state: Fixtures.secret("sent \(localID)"), isCurrent: true)])],
                           queuedAt: Fixtures.time(3))
        }
        _ = try await store.queueOutgoingMessage(commit("l1", session: current))
        let sessions = try await store.sessions(userID: "u", deviceID: "d", limit: 40)
        #expect(sessions.map(\.id) == [current, old])
        #expect(sessions.map { Fixtures.text($0.state) } == ["sent l1", "old"])
        #expect(sessions.first?.updatedAt == Fixtures.time(3))

        // A session removed since it was loaded (keys retired after a rollback) is not brought back.
        await #expect(throws: KeyStoreError.missingRecord(.session, id: "gone")) { _ = try await store.queueOutgoingMessage(commit("l2", session: "gone")) }
        #expect(try await store.sessions(userID: "u", deviceID: "d", limit: 40).map(\.id) == [current, old])
        #expect(try await store.outbox().map(\.localID) == ["l1"])
    }

    @Test func deliveryStatesFollowTheirOrderAndOwnMessagesStayReadable() async throws {
        let store = try await storeWithSenderKey()
        _ = try await queue(store, "l1")
        await #expect(throws: KeyStoreError.invalidTransition(.outboxMessage, id: "l1", from: "queued", to: "failed")) {
            try await store.markFailed(localID: "l1", error: "x", giveUp: true, at: Fixtures.time(2))
        }
        try await store.markSending(localID: "l1", at: Fixtures.time(2))
        try await store.markFailed(localID: "l1", error: "timeout", giveUp: false, at: Fixtures.time(3))
        try await store.markSending(localID: "l1", at: Fixtures.time(4))
        try await store.markSent(localID: "l1", serverMessageID: "srv-1", createdAt: StoreTime(microseconds: 4_000_123), senderUserID: "me", senderDeviceID: "dev")
        #expect(try await store.markDelivered(serverMessageID: "srv-1", at: Fixtures.time(5)))
        #expect(try await !store.markDelivered(serverMessageID: "someone-else", at: Fixtures.time(5)))
        let message = try #require(try await store.outbox(states: [.delivered]).first)
        #expect(message.attempts == 2)
        #expect(message.serverMessageID == "srv-1")
        #expect(message.lastError == nil)
        let own = try #require(try await store.message(id: "srv-1"))
        #expect(own.isOwn)
        #expect(Fixtures.text(own.plaintext) == "text l1")
        #expect(own.contentHash == Fixtures.hash("content l1"))
        await #expect(throws: KeyStoreError.self) {
            try await store.markSent(localID: "l1", serverMessageID: "srv-2", createdAt: Fixtures.time(6), senderUserID: nil, senderDeviceID: nil)
        }
    }

    @Test func giveUpAfterRetriesLeavesTheMessageFailedAndRetryable() async throws {
        let store = try await storeWithSenderKey()
        _ = try await queue(store, "l1")
        try await store.markSending(localID: "l1", at: Fixtures.time(2))
        try await store.markFailed(localID: "l1", error: "HTTP 503", giveUp: true, at: Fixtures.time(3))
        #expect(try await store.outbox(states: [.failed]).first?.lastError == "HTTP 503")
        try await store.markSending(localID: "l1", at: Fixtures.time(4))
        #expect(try await store.outbox(states: [.sending]).count == 1)
    }

    @Test func sequenceIsPerChannel() async throws {
        let store = try KeyStore.inMemory()
        for (id, channel) in [("a1", "a"), ("b1", "b"), ("a2", "a")] {
            _ = try await store.queueOutgoingMessage(OutgoingCommit(localID: id, channelID: channel, content: id, plaintext: Fixtures.secret(id), queuedAt: Fixtures.time(1)))
        }
        let outbox = try await store.outbox()
        #expect(outbox.map(\.localID) == ["a1", "a2", "b1"])
        #expect(outbox.map(\.sequence) == [1, 2, 1])
    }

    @Test func pagesWalkBackWithoutSkippingOrRepeatingTiedTimestamps() async throws {
        let store = try KeyStore.inMemory()
        // 23 messages, many sharing a created_at, inserted out of order, plus another channel.
        var expected: [TimelineCursor] = []
        for index in (0..<23).reversed() {
            let message = Fixtures.message(String(format: "id-%02d", (index * 7) % 23), at: Int64(index / 4))
            expected.append(message.cursor)
            _ = try await store.storeReceiveBatch([ReceiveWrites.decrypted(message)])
        }
        _ = try await store.storeReceiveBatch([ReceiveWrites.decrypted(Fixtures.message("other", channel: "channel-2", at: 1, plaintext: "x"))])
        expected.sort { ($0.createdAt, $0.messageID) < ($1.createdAt, $1.messageID) }

        var seen: [TimelineCursor] = []
        var cursor: TimelineCursor?
        while true {
            let page = try await store.timelinePage(channelID: "channel-1", before: cursor, limit: 5)
            if page.isEmpty { break }
            #expect(page.count <= 5)
            seen.insert(contentsOf: page.map(\.cursor), at: 0)
            cursor = page.first?.cursor
        }
        #expect(seen == expected)
        #expect(try await store.messageCount(channelID: "channel-1") == 23)
        #expect(try await store.messageCount(channelID: "channel-1", state: .undecryptable(reason: "any")) == 0)
        #expect(try await store.timelinePage(channelID: "channel-1", limit: 0).isEmpty)
    }

    @Test func pageOpensPlaintexts() async throws {
        let store = try KeyStore.inMemory()
        for index in 0..<60 {
            _ = try await store.storeReceiveBatch([ReceiveWrites.decrypted(Fixtures.message("m\(index)", at: Int64(index), plaintext: "text \(index)"))])
        }
        let page = try await store.timelinePage(channelID: "channel-1", limit: 50)
        #expect(page.count == 50)
        #expect(page.map { Fixtures.text($0.plaintext) } == (10..<60).map { "text \($0)" })
    }
}
