import E2EEKeyStore

/// The REST half of SYNC.md guarantee 6: pages a channel back from its newest message until a
/// page overlaps what the store already has (or the history ends), never skipping rows tied at
/// a page boundary (guarantee 7, through ``MessageHistoryPager``).
struct HistoryCatchUp: Sendable {
    /// What one catch-up of a channel found.
    struct Result: Sendable {
        /// The messages, oldest → newest: those the store does not know yet, plus the
        /// overlapping page.
        var messages: [ServerMessage] = []
        /// The pager reached the channel's first message: the store now has all of it.
        var reachedStart = false
        /// The catch-up stopped at ``HistoryCatchUp/limit`` before it reached what the store
        /// has: there may be a gap behind the oldest message fetched.
        var stoppedAtLimit = false
    }

    let api: any ChatServerAPI
    let store: KeyStore
    /// Messages per request (1…100).
    var pageSize = 50
    /// At most this many messages are fetched in one catch-up (older history is paged on demand).
    var limit = 5_000

    /// Pages `channelID` back to the store's overlap, the start, or the limit.
    /// - Throws: ``ServerError``, key store errors.
    func recentMessages(channelID: String) async throws -> Result {
        var pager = MessageHistoryPager(server: api, channelID: channelID, pageSize: min(pageSize, limit))
        var pages: [[ServerMessage]] = []
        var count = 0
        var overlapped = false
        while count < limit {
            let page = try await pager.nextPage()
            guard !page.isEmpty else { break }
            pages.append(page)
            count += page.count
            if try await !store.knownMessageIDs(page.map(\.id)).isEmpty {
                overlapped = true
                break
            }
        }
        return Result(messages: pages.reversed().flatMap { $0 }, reachedStart: pager.reachedStart,
                      stoppedAtLimit: !overlapped && !pager.reachedStart && count >= limit)
    }
}
