import E2EECrypto
@_spi(StoreInternals) @testable import E2EEKeyStore
import Foundation
import Testing

/// At the store: a received write removes its message's pending ciphertext only when the row
/// was stored before (a re-drive, a page read again), and always then, also on a store that
/// keeps parked ciphertexts for good (so "any pending row exists" is always true there).
@Suite struct PendingRemovalStoreTests {
    /// A store holding one parked ciphertext (a message sent after this device left channel-9).
    private func storeWithAParkedRow() async throws -> KeyStore {
        let store = try KeyStore.inMemory()
        _ = try await store.storeReceiveBatch([ReceiveWrites.pending(Fixtures.message("parked", channel: "channel-9", at: 200,
                                                                                      state: .pendingKey),
                                                                     content: "env parked", waitingFor: "sender_key:channel-9/device-b/1")])
        try await store.recordDeparture(channelID: "channel-9")
        #expect(try await store.settleDepartedPending(reason: "sent_after_leaving").map(\.messageID) == ["parked"])
        return store
    }

    private func queuedIDs(_ store: KeyStore) async throws -> [String] {
        try await store.read { db in try String.fetchAll(db, sql: "SELECT message_id FROM pending_ciphertexts ORDER BY message_id") }
    }

    @Test func aDecryptionBetweenFreshRowsRemovesItsPendingCiphertext() async throws {
        let store = try await storeWithAParkedRow()
        _ = try await store.storeReceiveBatch([ReceiveWrites.pending(Fixtures.message("waiting", at: 300, state: .pendingKey), content: "env")])
        #expect(try await queuedIDs(store) == ["parked", "waiting"])

        // One batch: a fresh row, the re-driven one, another fresh row. The fresh rows are
        // inserted; the re-driven one is updated, the only one that may have a queued ciphertext.
        let results = try await store.storeReceiveBatch([
            ReceiveWrites.decrypted(Fixtures.message("fresh-1", at: 310, plaintext: "one")),
            ReceiveWrites.decrypted(Fixtures.message("waiting", at: 300, plaintext: "opened")),
            ReceiveWrites.decrypted(Fixtures.message("fresh-2", at: 320, plaintext: "two")),
        ])
        #expect(results == [.stored, .stored, .stored])
        #expect(try await queuedIDs(store) == ["parked"])
        #expect(try await store.message(id: "waiting")?.state == .decrypted)
        #expect(try await store.message(id: "fresh-2")?.state == .decrypted)
    }

    @Test func aFinalOutcomeOfAPendingMessageRemovesItsCiphertextAndAFreshOneLeavesTheQueue() async throws {
        let store = try await storeWithAParkedRow()
        _ = try await store.storeReceiveBatch([ReceiveWrites.pending(Fixtures.message("waiting", at: 300, state: .pendingKey), content: "env")])

        _ = try await store.storeReceiveBatch([
            ReceiveWrites.outcome(Fixtures.message("fresh", at: 290, state: .undecryptable(reason: "bad_signature"))),
            ReceiveWrites.outcome(Fixtures.message("waiting", at: 300, state: .undecryptable(reason: "bad_signature"))),
        ])
        #expect(try await queuedIDs(store) == ["parked"])
        #expect(try await store.message(id: "waiting")?.state == .undecryptable(reason: "bad_signature"))
        #expect(try await store.message(id: "fresh")?.state == .undecryptable(reason: "bad_signature"))
    }

    @Test func aPendingRowAndItsDecryptionInOneBatchLeaveNothingQueued() async throws {
        let store = try await storeWithAParkedRow()
        _ = try await store.storeReceiveBatch([
            ReceiveWrites.pending(Fixtures.message("same-batch", at: 300, state: .pendingKey), content: "env"),
            ReceiveWrites.decrypted(Fixtures.message("same-batch", at: 300, plaintext: "opened at once")),
        ])
        #expect(try await queuedIDs(store) == ["parked"])
        #expect(try await store.message(id: "same-batch")?.state == .decrypted)
    }
}
