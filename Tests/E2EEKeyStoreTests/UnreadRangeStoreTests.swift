@_spi(StoreInternals) @testable import E2EEKeyStore
import Testing

/// At the store (`v16`): the ranges a catch-up left unread for the send gate's scan, and the
/// record of key renewals (docs/spec/protocol.md §3.13).
@Suite struct UnreadRangeStoreTests {
    private func cursor(_ micros: Int64, _ id: String) -> TimelineCursor {
        TimelineCursor(createdAt: StoreTime(microseconds: micros), messageID: id)
    }

    @Test func aSecondRangeMergesFromTheOlderBottomToTheNewerTopAndTheScanMovesDown() async throws {
        let store = try KeyStore.inMemory()
        #expect(try await store.unreadRange(channelID: "c") == nil)
        try await store.recordUnreadRange(channelID: "c", UnreadRange(below: 100, resume: cursor(500, "m5")), at: StoreTime(microseconds: 1))
        try await store.recordUnreadRange(channelID: "c", UnreadRange(below: 700, resume: cursor(900, "m9")), at: StoreTime(microseconds: 2))
        #expect(try await store.unreadRange(channelID: "c") == UnreadRange(below: 100, resume: cursor(900, "m9")))
        try await store.advanceUnreadRange(channelID: "c", to: cursor(300, "m3"), at: StoreTime(microseconds: 3))
        #expect(try await store.unreadRange(channelID: "c") == UnreadRange(below: 100, resume: cursor(300, "m3")))
        // A range without a mark reads down to what the store holds: the merge keeps that.
        try await store.recordUnreadRange(channelID: "c", UnreadRange(below: nil, resume: cursor(200, "m2")), at: StoreTime(microseconds: 4))
        #expect(try await store.unreadRange(channelID: "c") == UnreadRange(below: nil, resume: cursor(300, "m3")))
        try await store.clearUnreadRange(channelID: "c")
        #expect(try await store.unreadRange(channelID: "c") == nil)
    }

    @Test func aRenewalClearsEveryRangeAndIsRemembered() async throws {
        let store = try KeyStore.inMemory()
        try await store.recordUnreadRange(channelID: "a", UnreadRange(below: 1, resume: cursor(5, "x")), at: StoreTime(microseconds: 1))
        try await store.recordUnreadRange(channelID: "b", UnreadRange(below: 1, resume: cursor(5, "y")), at: StoreTime(microseconds: 1))
        #expect(try await store.keysRenewedAt() == nil)
        try await store.recordKeysRenewed(at: StoreTime(microseconds: 10))
        #expect(try await store.keysRenewedAt() == StoreTime(microseconds: 10))
        #expect(try await store.unreadRange(channelID: "a") == nil)
        #expect(try await store.unreadRange(channelID: "b") == nil)
        #expect(try await !store.encryptedSince(StoreTime(microseconds: 10)))
    }
}
