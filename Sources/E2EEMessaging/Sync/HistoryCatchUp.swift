import E2EEKeyStore

/// The REST half of SYNC.md guarantee 6: pages a channel back from its newest message until a
/// page overlaps what the store already has (or the history ends), never skipping rows tied at
/// a page boundary (guarantee 7, through ``MessageHistoryPager``).
struct HistoryCatchUp: Sendable {
    let api: any ChatServerAPI
    let store: KeyStore
    /// Messages per request (1…100).
    var pageSize = 50
    /// At most this many messages are fetched in one catch-up (older history is paged on demand).
    var limit = 5_000

    /// The messages the store does not know yet, plus the overlapping page, oldest → newest.
    /// - Throws: ``ServerError``, key store errors.
    func recentMessages(channelID: String) async throws -> [ServerMessage] {
        var pager = MessageHistoryPager(server: api, channelID: channelID, pageSize: pageSize)
        var pages: [[ServerMessage]] = []
        var count = 0
        while count < limit {
            let page = try await pager.nextPage()
            guard !page.isEmpty else { break }
            pages.append(page)
            count += page.count
            if try await !store.knownMessageIDs(page.map(\.id)).isEmpty { break }
        }
        return pages.reversed().flatMap { $0 }
    }
}
