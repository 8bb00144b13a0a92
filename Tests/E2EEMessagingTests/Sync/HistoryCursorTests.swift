@_spi(StoreInternals) import E2EEKeyStore
@_spi(Benchmarks) @testable import E2EEMessaging
import Foundation
import Testing

/// The verified mark (docs/spec/sync.md guarantee 6): only REST catch-ups move it, behind the
/// newest message they read; what a socket delivers never does (a socket can lose events without
/// knowing, `HealedFanOutTests`).
@Suite("History cursor: the verified mark")
struct HistoryCursorTests {
    private let channel = "c0ffee00-0000-4000-8000-000000000001"

    private func message(at micros: Int64, id: String = UUID().uuidString.lowercased()) -> ServerMessage {
        ServerMessage(id: MessageID(id), channelID: ChannelID(channel), senderID: "user-b", senderDeviceID: "device-b", content: "x", contentType: "text",
                      protocolVersion: 1, replyToID: nil, editedAt: nil, createdAt: ServerTimestamp(microseconds: micros))
    }

    private func cursor(_ store: KeyStore) -> HistoryCursor {
        HistoryCursor(store: store, locks: KeyedAsyncLock(), now: { StoreTime(microseconds: 1_000_000_000) }, overlap: 10)
    }

    @Test("a channel no catch-up has read has no mark")
    func noCatchUpNoMark() async throws {
        let store = try KeyStore.inMemory()
        #expect(try await cursor(store).verifiedThrough(channelID: ChannelID(channel)) == nil)
        #expect(try await store.syncCursor(channelID: channel)?.newest == nil)
    }

    @Test("each catch-up moves the mark behind the newest message it read (less the overlap), and never back; the store keeps it")
    func catchUpsMoveTheMarkForward() async throws {
        let store = try KeyStore.inMemory()
        let history = cursor(store)
        try await history.recordCatchUp(channelID: ChannelID(channel), HistoryCatchUp.Result(messages: [message(at: 1_000), message(at: 2_000)]))
        #expect(try await history.verifiedThrough(channelID: ChannelID(channel)) == 1_990)
        try await history.recordCatchUp(channelID: ChannelID(channel), HistoryCatchUp.Result(messages: [message(at: 1_500)]))
        #expect(try await history.verifiedThrough(channelID: ChannelID(channel)) == 1_990)
        try await history.recordCatchUp(channelID: ChannelID(channel), HistoryCatchUp.Result(messages: [message(at: 3_000)]))
        #expect(try await history.verifiedThrough(channelID: ChannelID(channel)) == 2_990)
        #expect(try await store.syncCursor(channelID: channel)?.newest?.createdAt.microseconds == 2_990)
        // A fresh cursor over the same store (the next process) reads the same mark.
        #expect(try await cursor(store).verifiedThrough(channelID: ChannelID(channel)) == 2_990)
    }

    @Test("a server timestamp in the future moves the mark no further than this device's clock (plus the allowed skew)")
    func futureTimestampIsClampedToTheDeviceClock() async throws {
        let store = try KeyStore.inMemory()
        let now: Int64 = 1_000_000_000
        let history = HistoryCursor(store: store, locks: KeyedAsyncLock(), now: { StoreTime(microseconds: now) }, overlap: 10, maxSkew: 500)
        try await history.recordCatchUp(channelID: ChannelID(channel), HistoryCatchUp.Result(messages: [message(at: 1_000)]))
        try await history.recordCatchUp(channelID: ChannelID(channel), HistoryCatchUp.Result(messages: [message(at: 4_102_444_800_000_000)]))  // 2100-01-01
        #expect(try await history.verifiedThrough(channelID: ChannelID(channel)) == now + 500)
        #expect(try await store.syncCursor(channelID: channel)?.newest?.createdAt.microseconds == now + 500)
    }
}
