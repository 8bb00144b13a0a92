import E2EECrypto
@_spi(StoreInternals) @testable import E2EEKeyStore
import Foundation
import Testing

/// At the store: pending group messages sent after this device left a channel
/// leave the pending queue, parked with their ciphertext.
@Suite struct DepartedChannelStoreTests {
    static let senderKey = "sender_key:channel-1/device-b/2"

    private func pending(_ store: KeyStore, _ id: String, channel: String = "channel-1", at micros: Int64, waitingFor: String = senderKey) async throws {
        _ = try await store.storeReceiveBatch([ReceiveWrites.pending(Fixtures.message(id, channel: channel, at: micros, state: .pendingKey),
                                                                     content: "env \(id)", waitingFor: waitingFor)])
    }

    @Test func onlySenderKeyWaitsAfterTheDepartureAreParkedAndStillOpenWithTheirKey() async throws {
        let store = try KeyStore.inMemory()
        _ = try await store.storeReceiveBatch([ReceiveWrites.decrypted(Fixtures.message("read", at: 100, plaintext: "before leaving"))])
        try await pending(store, "after", at: 200)
        try await pending(store, "session", at: 300, waitingFor: "session:user-b/device-b")
        try await pending(store, "elsewhere", channel: "channel-2", at: 200, waitingFor: "sender_key:channel-2/device-b/2")
        #expect(try await store.settleDepartedPending(reason: "sent_after_leaving").isEmpty)  // no departure yet

        try await store.recordDeparture(channelID: "channel-1")
        let settled = try await store.settleDepartedPending(reason: "sent_after_leaving")
        #expect(settled == [SettledPendingRow(channelID: "channel-1", messageID: "after")])
        #expect(try await store.message(id: "after")?.state == .undecryptable(reason: "sent_after_leaving"))
        #expect(try await store.message(id: "read")?.state == .decrypted)
        #expect(try await store.pendingCount() == 2)
        #expect(try await store.pendingReceives().map(\.pending.messageID).sorted() == ["elsewhere", "session"])
        #expect(try await store.settleDepartedPending(reason: "sent_after_leaving").isEmpty)

        // The ciphertext is kept: the key it names still finds it, and opens it.
        #expect(try await store.pendingReceives(waitingFor: [Self.senderKey]).map(\.pending.messageID).contains("after"))
        _ = try await store.storeReceiveBatch([ReceiveWrites.decrypted(Fixtures.message("after", at: 200, plaintext: "opened late"))])
        #expect(try await store.message(id: "after")?.state == .decrypted)
        #expect(try await !store.pendingReceives(waitingFor: [Self.senderKey]).map(\.pending.messageID).contains("after"))
    }

    @Test func messagesAfterARejoinStayPending() async throws {
        let store = try KeyStore.inMemory()
        _ = try await store.storeReceiveBatch([ReceiveWrites.decrypted(Fixtures.message("read", at: 100, plaintext: "before leaving"))])
        try await store.recordDeparture(channelID: "channel-1")
        try await store.write { db in try store.recordRejoin(channelID: "channel-1", at: StoreTime(microseconds: 250), db) }
        try await pending(store, "while away", at: 200)
        try await pending(store, "after rejoin", at: 300)
        let settled = try await store.settleDepartedPending(reason: "sent_after_leaving")
        #expect(settled.map(\.messageID) == ["while away"])
        #expect(try await store.message(id: "after rejoin")?.state == .pendingKey)
        #expect(try await store.pendingCount() == 1)
    }
}
