/// How long received rows may wait for others to share their transaction (issue 47, decision 2),
/// and how many may share one: the bounds of the ``ChunkCommitter``'s commit window, in one place.
///
/// Chunks that lanes hand in — of one catch-up, of catch-ups of several channels side by side, of
/// socket frames — wait until one of these holds, then everything waiting (up to ``maxRows``)
/// commits in one transaction:
/// - ``maxRows`` rows wait;
/// - the oldest waiting row has waited ``maxWait`` (counted from its hand-in, so the rows that
///   arrive while a commit runs wait no longer than that either);
/// - someone waits for a waiting row — a lane's last chunk (a socket frame's whole commit), or a
///   lane that must see its rows stored before it goes on — and fewer lanes still work than the
///   process has cores (the ``ChunkCommitter`` counts them). A lone frame on an idle connection
///   therefore commits at once, as before.
///
/// Nothing else moves with the window: a batch's caller (the sync engine: cursor and verified
/// marks) hears of its rows only after the commit that holds them, and events are published
/// after it, so a process killed while rows wait loses only rows it never committed, which the
/// next catch-up reads again.
@_spi(Benchmarks) public struct CommitWindow: Sendable, Equatable {
    /// What the committer does with the rows waiting now.
    enum Decision: Equatable {
        /// Commit them now.
        case commitNow
        /// Wait for more until this instant (unless a bound is reached, or someone waits, first).
        case wait(until: ContinuousClock.Instant)
    }

    /// At most this many rows (writes) in one transaction; rows waiting beyond it commit in the next.
    public var maxRows: Int
    /// At most this long between a row's hand-in and the start of the transaction that commits it
    /// (plus the commit running when the bound is reached).
    public var maxWait: Duration

    /// The bounds: `maxRows` rows (at least 1), `maxWait` (zero: no window, commits start as
    /// soon as the writer is free, as before issue 47).
    public init(maxRows: Int, maxWait: Duration) {
        self.maxRows = max(1, maxRows)
        self.maxWait = max(.zero, maxWait)
    }

    /// The receive path's bounds: at most 5,000 rows, at most 250 ms of waiting. Long enough for
    /// the catch-ups of one round (several channels side by side, ~1,300 rows on one core in the
    /// ingest benchmark) to share a transaction, which saved ~3 % of the ingest's CPU on one core
    /// (fewer transactions; the bytes written per row did not fall measurably: Benchmarks/README.md,
    /// "Decision 2" and the tenth session). A lone frame on an idle connection never waits for it.
    public static let standard = CommitWindow(maxRows: 5_000, maxWait: .milliseconds(250))

    /// No window: rows commit as soon as the writer is free (those handed in while a commit runs
    /// still share the next one).
    public static let none = CommitWindow(maxRows: 5_000, maxWait: .zero)

    /// What to do with `rows` waiting rows, the oldest handed in at `oldest`, at `now`;
    /// `awaited`: someone waits for one of them.
    func decide(rows: Int, oldest: ContinuousClock.Instant, awaited: Bool, now: ContinuousClock.Instant) -> Decision {
        if awaited || rows >= maxRows { return .commitNow }
        let deadline = oldest + maxWait
        return deadline <= now ? .commitNow : .wait(until: deadline)
    }

    /// How many of the waiting chunks (their row counts, oldest first) the next transaction
    /// takes: as many as fit in ``maxRows``, and at least the first (a chunk is never split: it
    /// commits all or nothing).
    func take(_ chunkRows: [Int]) -> Int {
        var rows = 0
        var count = 0
        for chunk in chunkRows {
            if count > 0, rows + chunk > maxRows { break }
            rows += chunk
            count += 1
        }
        return count
    }
}
