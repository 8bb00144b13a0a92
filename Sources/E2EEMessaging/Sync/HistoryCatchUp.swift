import E2EEKeyStore

/// The REST half of docs/spec/sync.md guarantee 6: pages a channel back from its newest message, never
/// skipping rows tied at a page boundary (guarantee 7, through ``MessageHistoryPager``), until
/// it has everything newer than the channel's verified mark (``HistoryCursor``) — or, without a
/// mark, until a page overlaps what the store has — or the history ends, or a limit (of
/// messages or of bytes).
///
/// Stopping at the first page that holds a known message is not enough once the store holds
/// messages that arrived past a gap (our own sends, socket events after a lost one, a row
/// committed after an earlier catch-up read): the known message proves nothing about what is
/// older than it. The mark does: everything newer than it was read over REST (a socket's
/// deliveries never move it: a socket can lose events without a sign, docs/spec/server-api.md §12).
///
/// A catch-up that stops at its limit leaves the rest of the gap unread: its caller records that
/// range for the send gate's scan (``UnreadRangeScan``, docs/spec/protocol.md §3.13), which
/// reads it for this device's own messages before the first send.
struct HistoryCatchUp: Sendable {
    /// What one catch-up of a channel found.
    struct Result: Sendable {
        /// The messages, oldest → newest: everything back to the mark (or the overlap), the
        /// known ones included.
        var messages: [ServerMessage] = []
        /// The pager reached the channel's first message: the store now has all of it.
        var reachedStart = false
        /// The catch-up stopped at ``HistoryCatchUp/limit`` before it reached the mark or what
        /// the store has: there may be a gap behind the oldest message fetched.
        var stoppedAtLimit = false
    }

    let api: any ChatServerAPI
    let store: KeyStore
    /// Messages per request (1…100).
    var pageSize = 50
    /// At most this many messages are fetched in one catch-up (older history is paged on demand).
    var limit = 5_000
    /// At most this many bytes of message content are held in one catch-up: a server whose
    /// pages never end (`has_more` forever) or carry the largest contents cannot make a
    /// catch-up hold more; it stops as at ``limit`` and older paging resumes behind it.
    var byteLimit = 8 << 20

    /// Pages `channelID` back to `verifiedThrough` (microseconds of server time; nil: to the
    /// store's overlap), the start, or the limit. With `waits` (the send gate's reads), a 429 is
    /// waited out as its `Retry-After` asks before the read is tried again.
    /// - Throws: ``ServerError``, key store errors.
    func recentMessages(channelID: ChannelID, verifiedThrough mark: Int64?, waits: RateLimitWaits? = nil) async throws -> Result {
        var pager = MessageHistoryPager(server: api, channelID: channelID, pageSize: min(pageSize, limit))
        var pages: [[ServerMessage]] = []
        var count = 0
        var bytes = 0
        var reached = false
        while count < limit, bytes < byteLimit {
            let page = if let waits { try await waits.nextPage(&pager) } else { try await pager.nextPage() }
            guard !page.isEmpty else { break }
            pages.append(page)
            count += page.count
            bytes += page.reduce(0) { $0 + $1.content.utf8.count }
            if try await Self.reaches(page, mark: mark, store: store) {
                reached = true
                break
            }
        }
        var result = Result(messages: pages.reversed().flatMap { $0 }, reachedStart: pager.reachedStart)
        result.stoppedAtLimit = !reached && !pager.reachedStart && (count >= limit || bytes >= byteLimit)
        return result
    }

    /// Whether `page` (oldest first) reaches the mark, or without a mark what the store has.
    static func reaches(_ page: [ServerMessage], mark: Int64?, store: KeyStore) async throws -> Bool {
        guard let oldest = page.first else { return false }
        if let mark { return oldest.createdAt.microseconds < mark }
        return try await !store.knownMessageIDs(page.map(\.id.rawValue)).isEmpty
    }
}
