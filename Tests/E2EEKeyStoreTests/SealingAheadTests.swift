import E2EECrypto
@_spi(StoreInternals) @testable import E2EEKeyStore
import Foundation
import GRDB
import Testing

/// `KeyStore.sealingAhead`: the columns a lane computes before the commit are the ones the
/// commit would have computed, and are used only while the row still has their inputs.
@Suite struct SealingAheadTests {
    private func decrypted(_ id: String, text: String, payloadID: String?, user: String = "user-b") -> ReceiveWrite {
        var row = Fixtures.message(id, at: 1, plaintext: text)
        row.senderUserID = user
        return ReceiveWrite(action: .decrypted(DecryptionCommit(message: row, processedAt: Fixtures.time(2))),
                            facts: ReceivedFacts(kind: .message, payloadID: payloadID))
    }

    private func payloadKey(_ id: String, _ store: KeyStore) async throws -> Data? {
        try await store.read { db in try Data.fetchOne(db, sql: "SELECT payload_key FROM timeline WHERE message_id = ?", arguments: [id]) }
    }

    @Test func rowsSealedAheadAreStoredAsTheCommitWouldStoreThem() async throws {
        let dir = try TemporaryDirectory()
        let store = try KeyStore.open(at: dir.storeURL, key: .random())
        let writes = store.sealingAhead([
            decrypted("m1", text: "first", payloadID: "p1"),
            decrypted("m2", text: "second", payloadID: "p1"),
            decrypted("m3", text: "other user", payloadID: "p1", user: "user-c"),
        ])
        #expect(writes.allSatisfy { $0.ahead != nil })
        #expect(try await store.storeReceiveBatch(writes) == [.stored, .duplicateOfPayload("m1"), .stored])
        // The sealed bytes open under the row's own id: the same column the commit writes.
        #expect(try await store.receivedMessage(id: "m1")?.message.plaintext == SecretBytes(copying: Array("first".utf8)))
        #expect(try await store.receivedMessage(id: "m3")?.message.plaintext == SecretBytes(copying: Array("other user".utf8)))
        // The duplicate keeps no plaintext and no payload key, as without sealing ahead.
        #expect(try await store.receivedMessage(id: "m2")?.message.plaintext == nil)
        #expect(try await payloadKey("m2", store) == nil)
        #expect(try await payloadKey("m1", store) == StoreSchema.payloadKey(senderUserID: "user-b", payloadID: "p1"))
        #expect(try await payloadKey("m3", store) == StoreSchema.payloadKey(senderUserID: "user-c", payloadID: "p1"))
    }

    @Test func aPlaintextChangedAfterSealingAheadIsSealedAgain() async throws {
        let store = try KeyStore.inMemory()
        var write = try #require(store.sealingAhead([decrypted("m1", text: "sealed ahead", payloadID: "p1")]).first)
        guard case .decrypted(var commit) = write.action else { Issue.record("not a decryption"); return }
        commit.message.plaintext = SecretBytes(copying: Array("changed later".utf8))
        write.action = .decrypted(commit)
        #expect(try await store.storeReceiveBatch([write]) == [.stored])
        #expect(try await store.receivedMessage(id: "m1")?.message.plaintext == SecretBytes(copying: Array("changed later".utf8)))
    }

    @Test func aPayloadIDChangedAfterSealingAheadGetsItsOwnKey() async throws {
        let store = try KeyStore.inMemory()
        var write = try #require(store.sealingAhead([decrypted("m1", text: "x", payloadID: "p1")]).first)
        write.facts.payloadID = "p2"
        #expect(try await store.storeReceiveBatch([write]) == [.stored])
        #expect(try await payloadKey("m1", store) == StoreSchema.payloadKey(senderUserID: "user-b", payloadID: "p2"))
        // The rule holds on the key actually stored: p2 is taken, p1 is free.
        #expect(try await store.storeReceiveBatch([decrypted("m2", text: "y", payloadID: "p2")]) == [.duplicateOfPayload("m1")])
        #expect(try await store.storeReceiveBatch([decrypted("m3", text: "z", payloadID: "p1")]) == [.stored])
    }
}
