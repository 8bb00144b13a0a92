import E2EECrypto
@_spi(StoreInternals) @testable import E2EEKeyStore
import Foundation
import GRDB
import Testing

/// ``KeyStore/sealAhead(_:)``: a lane seals its rows' plaintexts and makes their payload keys
/// before the transaction, and ``KeyStore/storeReceiveBatch(_:)`` uses them only while the row
/// still matches what they were made from.
@Suite("Receiving: rows sealed ahead of their transaction")
struct SealAheadStoreTests {
    private func decrypted(_ id: String, at micros: Int64, text: String, payloadID: String, user: String = "user-b") -> ReceiveWrite {
        var row = Fixtures.message(id, at: micros, plaintext: text)
        row.senderUserID = user
        return ReceiveWrites.decrypted(row, payloadID: payloadID)
    }

    /// The stored `plaintext` and `payload_key` columns of `id`.
    private func columns(_ id: String, _ store: KeyStore) async throws -> (plaintext: Data?, payloadKey: Data?) {
        try await store.read { db in
            let row = try Row.fetchOne(db, sql: "SELECT plaintext, payload_key FROM timeline WHERE message_id = ?", arguments: [id])
            return (row?["plaintext"], row?["payload_key"])
        }
    }

    @Test("a row sealed ahead stores exactly the sealed bytes and payload key made ahead, and reads back as its plaintext")
    func sealedAheadIsWhatIsStored() async throws {
        let store = try KeyStore.inMemory()
        var writes = [decrypted("m1", at: 1, text: "hello", payloadID: "p1")]
        store.sealAhead(&writes)
        let ahead = try #require(writes[0].ahead)
        #expect(ahead.sealedPlaintext != nil && ahead.payloadKey == StoreSchema.payloadKey(senderUserID: "user-b", payloadID: "p1"))
        #expect(try await store.storeReceiveBatch(writes) == [.stored])
        let stored = try await columns("m1", store)
        #expect(stored.plaintext == ahead.sealedPlaintext, "the transaction did not seal again")
        #expect(stored.payloadKey == ahead.payloadKey)
        #expect(Fixtures.text(try await store.receivedMessage(id: "m1")?.message.plaintext) == "hello")
    }

    @Test("a row sealed ahead that turns out a duplicate of an earlier payload stores neither its plaintext nor its payload key")
    func duplicateDropsWhatWasMadeAhead() async throws {
        let store = try KeyStore.inMemory()
        var writes = [decrypted("m1", at: 1, text: "first", payloadID: "p1"), decrypted("m2", at: 2, text: "second", payloadID: "p1")]
        store.sealAhead(&writes)
        #expect(try await store.storeReceiveBatch(writes) == [.stored, .duplicateOfPayload("m1")])
        let duplicate = try await columns("m2", store)
        #expect(duplicate.plaintext == nil && duplicate.payloadKey == nil)
        #expect(try await store.receivedMessage(id: "m2")?.message.plaintext == nil)
    }

    @Test("a row sealed ahead that a trusted tombstone already names is stored erased, without its sealed plaintext")
    func erasedDropsTheSealedPlaintext() async throws {
        let store = try KeyStore.inMemory()
        _ = try await store.storeReceiveBatch([ReceiveWrites.tombstone("t9", deleting: "p9", at: 5)])
        var writes = [decrypted("m9", at: 9, text: "late", payloadID: "p9")]
        store.sealAhead(&writes)
        #expect(try await store.storeReceiveBatch(writes) == [.storedErased])
        #expect(try await columns("m9", store).plaintext == nil)
    }

    @Test("what was made for another row, or another sender's payload, is not used: the transaction makes the row's own")
    func mismatchedAheadIsIgnored() async throws {
        let store = try KeyStore.inMemory()
        var other = [decrypted("other", at: 1, text: "not this row's", payloadID: "q", user: "user-c")]
        store.sealAhead(&other)
        var write = decrypted("m1", at: 2, text: "mine", payloadID: "p1")
        write.ahead = other[0].ahead
        #expect(try await store.storeReceiveBatch([write]) == [.stored])
        #expect(Fixtures.text(try await store.receivedMessage(id: "m1")?.message.plaintext) == "mine")
        #expect(try await columns("m1", store).payloadKey == StoreSchema.payloadKey(senderUserID: "user-b", payloadID: "p1"))
    }
}
