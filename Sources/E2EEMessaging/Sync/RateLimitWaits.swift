/// How the send gate's reads meet a rate limit (docs/spec/protocol.md §3.13): a 429 is not a
/// refusal, so the read waits as long as `Retry-After` asks (the reference server's 10 s when it
/// says nothing, never more than ``longestWait``) and is tried again, up to ``maximumWaits``
/// times in one run; then the 429 is thrown and the outbox entry waiting on the gate stays
/// queued (what was read is kept: the scan goes on from there).
struct RateLimitWaits: Sendable {
    /// 429s waited out in one run of the gate before the last is thrown.
    var maximumWaits = 3
    /// The wait when `Retry-After` is missing.
    var defaultWait: Duration = .seconds(10)
    /// The longest wait, whatever `Retry-After` says (the reference limiter's window).
    var longestWait: Duration = .seconds(60)
    /// Sleeps (tests shorten nothing: the development server's `Retry-After` is set per test).
    var sleep: @Sendable (Duration) async throws -> Void = { try await Task.sleep(for: $0) }

    /// The pager's next page, waiting out up to ``maximumWaits`` 429s.
    /// - Throws: ``ServerError`` (the last 429 among them), `CancellationError`.
    func nextPage(_ pager: inout MessageHistoryPager) async throws -> [ServerMessage] {
        var waited = 0
        while true {
            do {
                return try await pager.nextPage()
            } catch ServerError.rateLimited(let seconds) where waited < maximumWaits {
                waited += 1
                let asked = seconds.map { Duration.seconds(max(0, $0)) } ?? defaultWait
                try await sleep(min(asked, longestWait))
            }
        }
    }
}
