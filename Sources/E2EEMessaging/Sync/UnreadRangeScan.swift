@_spi(StoreInternals) import E2EEKeyStore

/// The send gate's scan (docs/spec/protocol.md §3.13): reads a channel's unread range (what a
/// catch-up that stopped at its limit left, ``UnreadRange``) from where it stopped down to the
/// mark it opened at, in pages of 100, handing this device's own messages to the rollback
/// detection (§3.14) page by page and keeping nothing else: the range stays for older paging.
///
/// Progress is kept in the store after each page (the evidence of a page is recorded before
/// its progress), so a scan cut short — by a rate limit it waited out too often, a lost
/// connection, the app closing — goes on where it stopped; the range's row goes once the scan
/// reaches its end. A 429 is waited out as `Retry-After` asks (``RateLimitWaits``).
struct UnreadRangeScan: Sendable {
    /// How a scan ended.
    enum Outcome: Sendable, Equatable {
        /// The range was read to its end (or the channel's start): nothing is left unread.
        case readToEnd
        /// The scan read its bound and the range goes on: what it read proves nothing about
        /// the rest, which stays recorded.
        case overBound
    }

    let api: any ChatServerAPI
    let store: KeyStore
    let now: @Sendable () -> StoreTime
    /// At most this many messages are read in one scan (the sync engine asks for four times its
    /// catch-up limit: 20,000, 200 requests of 100) before it gives up.
    var maximumMessages = 20_000
    /// How a 429 is met.
    var waits = RateLimitWaits()

    /// Scans `channelID`'s recorded range, if any; `found` gets each page's messages that
    /// `keeps` picks (this device's own), before the page's progress is stored.
    /// - Throws: ``ServerError`` (progress so far is kept), key store errors.
    func scan(channelID: ChannelID, keeps: @Sendable (ServerMessage) -> Bool,
              found: ([ServerMessage]) async throws -> Void) async throws -> Outcome {
        guard let range = try await store.unreadRange(channelID: channelID.rawValue) else { return .readToEnd }
        let start = ServerTimestamp(microseconds: range.resume.createdAt.microseconds)
        var pager = MessageHistoryPager(server: api, channelID: channelID, pageSize: min(100, max(1, maximumMessages)), from: start)
        var read = 0
        while read < maximumMessages {
            let page = try await waits.nextPage(&pager)
            guard let oldest = page.first else { break }
            read += page.count
            let own = page.filter(keeps)
            if !own.isEmpty { try await found(own) }
            // The page starts at the resume position itself, which the catch-up may have stored:
            // only what lies below it can show that the range has reached what the store holds.
            let below = page.filter { $0.id.rawValue != range.resume.messageID && $0.createdAt <= start }
            if try await HistoryCatchUp.reaches(below, mark: range.below, store: store) || pager.reachedStart { break }
            let resume = TimelineCursor(createdAt: StoreTime(microseconds: oldest.createdAt.microseconds), messageID: oldest.id.rawValue)
            try await store.advanceUnreadRange(channelID: channelID.rawValue, to: resume, at: now())
            if read >= maximumMessages { return .overBound }
        }
        try await store.clearUnreadRange(channelID: channelID.rawValue)
        return .readToEnd
    }
}
