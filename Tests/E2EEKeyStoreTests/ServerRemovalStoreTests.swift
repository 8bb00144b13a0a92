import E2EECrypto
@_spi(StoreInternals) @testable import E2EEKeyStore
import Testing

/// Schema `v10`: a message the server no longer has is marked, never erased.
@Suite struct ServerRemovalStoreTests {
    private func decrypted(_ id: String, at micros: Int64, text: String) -> ReceiveWrite {
        ReceiveWrite(action: .decrypted(DecryptionCommit(message: Fixtures.message(id, at: micros, plaintext: text), identity: nil,
                                                         processedAt: Fixtures.time(2))),
                     facts: ReceivedFacts(kind: .message, payloadID: "payload-\(id)"))
    }

    @Test func markKeepsThePlaintextAndClearingRemovesOnlyMarks() async throws {
        let store = try KeyStore.inMemory()
        _ = try await store.storeReceiveBatch([decrypted("m1", at: 1, text: "kept"), decrypted("m2", at: 2, text: "other")])
        #expect(try await store.markRemovedFromServer(messageID: "m1", channelID: "channel-2", at: Fixtures.time(3)) == .channelMismatch)
        #expect(try await store.markRemovedFromServer(messageID: "m1", channelID: "channel-1", at: Fixtures.time(3)) == .marked)
        #expect(try await store.markRemovedFromServer(messageID: "m1", channelID: "channel-1", at: Fixtures.time(4)) == .alreadyMarked)
        #expect(try await store.markRemovedFromServer(messageID: "unseen", channelID: "channel-1", at: Fixtures.time(3)) == .notShown)
        #expect(try await store.receivedMessage(id: "unseen") == nil, "no tombstone for an unseen id: it shows when it arrives")
        let row = try #require(try await store.receivedMessage(id: "m1"))
        #expect(row.message.state == .decrypted)
        #expect(row.message.plaintext.map { String(decoding: $0.unprotectedCopy(), as: UTF8.self) } == "kept")
        #expect(try await store.removedFromServer(messageIDs: ["m1", "m2", "unseen"]) == ["m1"])

        #expect(try await store.clearRemovedFromServer(messageIDs: ["m2", "unseen", "m1"]) == ["m1"])
        #expect(try await store.removedFromServer(messageIDs: ["m1", "m2"]).isEmpty)
        #expect(try await store.clearRemovedFromServer(messageIDs: ["m1"]).isEmpty)
    }

    @Test func anErasedRowIsNotMarked() async throws {
        let store = try KeyStore.inMemory()
        _ = try await store.storeReceiveBatch([decrypted("m1", at: 1, text: "bye")])
        #expect(try await store.storeReceiveBatch([ReceiveWrites.tombstone("t1", deleting: "payload-m1", at: 3)]) == [.storedErasing("m1")])
        #expect(try await store.markRemovedFromServer(messageID: "m1", channelID: "channel-1", at: Fixtures.time(4)) == .notShown)
    }
}
