@_spi(StoreInternals) import E2EEKeyStore
@_spi(Benchmarks) @testable import E2EEMessaging
import Foundation
import Testing

/// The verified mark (docs/spec/sync.md guarantee 6): socket events may move it only for a channel whose
/// history a catch-up of this process has read.
@Suite("History cursor: the verified mark")
struct HistoryCursorTests {
    private let channel = "c0ffee00-0000-4000-8000-000000000001"

    private func message(at micros: Int64, id: String = UUID().uuidString.lowercased()) -> ServerMessage {
        ServerMessage(id: MessageID(id), channelID: ChannelID(channel), senderID: "user-b", senderDeviceID: "device-b", content: "x", contentType: "text",
                      protocolVersion: 1, replyToID: nil, editedAt: nil, createdAt: ServerTimestamp(microseconds: micros))
    }

    private func cursor(_ store: KeyStore) -> HistoryCursor {
        HistoryCursor(store: store, locks: KeyedAsyncLock(), now: { StoreTime(microseconds: 1_000_000_000) }, marks: VerifiedMarks(), overlap: 10)
    }

    @Test("a socket event of a channel no catch-up has read leaves it without a mark (its older history stays the catch-up's)")
    func socketEventBeforeCatchUpSetsNoMark() async throws {
        let store = try KeyStore.inMemory()
        let history = cursor(store)
        history.socketDelivered(message(at: 5_000))
        try await history.saveSocketMarks()
        #expect(try await history.verifiedThrough(channelID: ChannelID(channel)) == nil)
        #expect(try await store.syncCursor(channelID: channel)?.newest == nil)
    }

    @Test("after a catch-up, socket events move the mark forward (less the overlap), never back")
    func socketEventsAfterCatchUpMoveTheMark() async throws {
        let store = try KeyStore.inMemory()
        let history = cursor(store)
        try await history.recordCatchUp(channelID: ChannelID(channel), HistoryCatchUp.Result(messages: [message(at: 1_000), message(at: 2_000)]))
        #expect(try await history.verifiedThrough(channelID: ChannelID(channel)) == 1_990)
        history.socketDelivered(message(at: 3_000))
        history.socketDelivered(message(at: 2_500))
        #expect(try await history.verifiedThrough(channelID: ChannelID(channel)) == 2_990)
        try await history.saveSocketMarks()
        #expect(try await store.syncCursor(channelID: channel)?.newest?.createdAt.microseconds == 2_990)
    }

    @Test("a catch-up that reached an empty channel's start lets the first socket event set its mark")
    func emptyChannelCaughtUpFromTheStart() async throws {
        let store = try KeyStore.inMemory()
        let history = cursor(store)
        try await history.recordCatchUp(channelID: ChannelID(channel), HistoryCatchUp.Result(messages: [], reachedStart: true))
        history.socketDelivered(message(at: 7_000))
        #expect(try await history.verifiedThrough(channelID: ChannelID(channel)) == 6_990)
    }

    @Test("a server timestamp in the future moves the mark no further than this device's clock (plus the allowed skew)")
    func futureTimestampIsClampedToTheDeviceClock() async throws {
        let store = try KeyStore.inMemory()
        let now: Int64 = 1_000_000_000
        let history = HistoryCursor(store: store, locks: KeyedAsyncLock(), now: { StoreTime(microseconds: now) }, marks: VerifiedMarks(),
                                    overlap: 10, maxSkew: 500)
        try await history.recordCatchUp(channelID: ChannelID(channel), HistoryCatchUp.Result(messages: [message(at: 1_000)]))
        history.socketDelivered(message(at: 4_102_444_800_000_000))  // 2100-01-01
        #expect(try await history.verifiedThrough(channelID: ChannelID(channel)) == now + 500)
        try await history.recordCatchUp(channelID: ChannelID(channel), HistoryCatchUp.Result(messages: [message(at: 4_102_444_800_000_000)]))
        try await history.saveSocketMarks()
        #expect(try await store.syncCursor(channelID: channel)?.newest?.createdAt.microseconds == now + 500)
    }
}
