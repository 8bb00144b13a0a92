@_spi(StoreInternals) import E2EEKeyStore
@testable import E2EEMessaging
import Testing

/// The order channels are caught up in (docs/spec/sync.md guarantee 10).
@Suite("Catch-up plan: the user's channels first")
struct CatchUpPlanTests {
    private func channel(_ id: String) -> ChatChannel {
        ChatChannel(ChannelRecord(id: id, name: id, isDM: false, encryptionType: "group", createdBy: nil, createdAt: StoreTime(microseconds: 0),
                                  membersFetchedAt: nil))
    }

    @Test("the channel asked for first, then the newest verified mark, channels never read last in list order")
    func order() async throws {
        let store = try KeyStore.inMemory()
        for (id, mark) in [("quiet", Int64(1_000)), ("busy", Int64(9_000))] {
            try await store.storeSyncCursor(SyncCursor(channelID: id, newest: TimelineCursor(createdAt: StoreTime(microseconds: mark), messageID: "m"),
                                                       oldest: nil, historyComplete: false, updatedAt: StoreTime(microseconds: 0)))
        }
        let channels = ["new1", "quiet", "asked", "busy", "new2"].map(channel)
        let ordered = try await CatchUpPlan.ordered(channels, first: "asked", store: store)
        #expect(ordered.map(\.id) == ["asked", "busy", "quiet", "new1", "new2"])
    }
}
