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
/// older than it. The mark does: everything newer than it was read over REST or on a socket
/// that lost nothing.
///
/// A catch-up that must open the send gate (docs/spec/protocol.md §3.13) goes on past its limit
/// when the limit comes first: it reads the rest of the gap down to the mark, keeping only the
/// messages a predicate picks (this device's own), so the rollback detection (§3.14) sees every
/// own message however many others were posted after it, in bounded memory.
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
        /// Past the limit, the gap behind the oldest message fetched was read down to the mark
        /// (or the overlap, or the start), and these are the messages the scan kept, oldest →
        /// newest. Empty when no scan ran.
        var keptPastLimit: [ServerMessage] = []
        /// Every message newer than the mark was read, here or by the scan past the limit: the
        /// catch-up read the channel to the present.
        var readToPresent = false
    }

    /// What a scan past the limit keeps, and how far it may go.
    struct GapScan: Sendable {
        /// The messages to keep (this device's own).
        var keeps: @Sendable (ServerMessage) -> Bool
        /// At most this many messages are read past the limit (the sync engine asks for four
        /// times the limit: 20,000, 200 requests of 100) before the scan gives up; the caller
        /// then renews its keys instead of relying on what it read.
        var maximumMessages = 20_000
        /// At most this many kept messages.
        var maximumKept = 5_000
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
    /// store's overlap), the start, or the limit; past the limit, with `scan`, on to the mark
    /// keeping what `scan` keeps.
    /// - Throws: ``ServerError``, key store errors.
    func recentMessages(channelID: ChannelID, verifiedThrough mark: Int64?, scanning scan: GapScan? = nil) async throws -> Result {
        var pager = MessageHistoryPager(server: api, channelID: channelID, pageSize: min(pageSize, limit))
        var pages: [[ServerMessage]] = []
        var count = 0
        var bytes = 0
        var reached = false
        while count < limit, bytes < byteLimit {
            let page = try await pager.nextPage()
            guard !page.isEmpty else { break }
            pages.append(page)
            count += page.count
            bytes += page.reduce(0) { $0 + $1.content.utf8.count }
            if try await reachesMark(page, mark: mark) {
                reached = true
                break
            }
        }
        var result = Result(messages: pages.reversed().flatMap { $0 }, reachedStart: pager.reachedStart)
        result.stoppedAtLimit = !reached && !pager.reachedStart && (count >= limit || bytes >= byteLimit)
        result.readToPresent = !result.stoppedAtLimit
        if result.stoppedAtLimit, let scan, let oldest = result.messages.first {
            (result.keptPastLimit, result.readToPresent) = try await scanGap(channelID: channelID, from: oldest.createdAt, mark: mark, scan)
        }
        return result
    }

    /// Whether `page` (oldest first) reaches the mark, or without a mark what the store has.
    private func reachesMark(_ page: [ServerMessage], mark: Int64?) async throws -> Bool {
        guard let oldest = page.first else { return false }
        if let mark { return oldest.createdAt.microseconds < mark }
        return try await !store.knownMessageIDs(page.map(\.id.rawValue)).isEmpty
    }

    /// Reads on from `start` (the oldest message the catch-up fetched) down to the mark, in pages
    /// of 100, keeping what `scan` keeps. Returns the kept messages (oldest → newest) and whether
    /// the mark (or the start) was reached within the scan's bounds.
    private func scanGap(channelID: ChannelID, from start: ServerTimestamp, mark: Int64?, _ scan: GapScan) async throws -> ([ServerMessage], Bool) {
        var pager = MessageHistoryPager(server: api, channelID: channelID, pageSize: min(100, scan.maximumMessages), from: start)
        var kept: [[ServerMessage]] = []
        var keptCount = 0
        var read = 0
        while read < scan.maximumMessages {
            let page = try await pager.nextPage()
            guard !page.isEmpty else { return (kept.reversed().flatMap { $0 }, pager.reachedStart) }
            read += page.count
            let own = page.filter(scan.keeps)
            keptCount += own.count
            guard keptCount <= scan.maximumKept else { break }
            kept.append(own)
            if try await reachesMark(page, mark: mark) || pager.reachedStart { return (kept.reversed().flatMap { $0 }, true) }
        }
        return (kept.reversed().flatMap { $0 }, false)
    }
}
