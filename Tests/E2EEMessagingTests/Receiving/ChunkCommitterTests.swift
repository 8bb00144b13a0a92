import Dispatch
import E2EECrypto
@_spi(StoreInternals) import E2EEKeyStore
@_spi(Benchmarks) @testable import E2EEMessaging
import Testing

@Suite("Receive: one chunk committer for every run")
struct ChunkCommitterTests {
    @Test("a failed transaction fails the later chunks of its run, unwritten, and no other run's")
    func failureIsScopedToItsRun() async throws {
        let store = try KeyStore.inMemory()
        let committer = ChunkCommitter(store: store)
        let failing = committer.startRun()
        let other = committer.startRun()
        await #expect(throws: KeyStoreError.self) { try await failing.submit([Self.row("a1"), Self.failingWrite("a2")]).value() }
        // The run's next chunk was decrypted on top of the failed one: it fails without a transaction.
        await #expect(throws: KeyStoreError.self) { try await failing.submit([Self.row("a3")]).value() }
        #expect(try await other.submit([Self.row("b1")]).value() == [.stored])
        failing.end()
        other.end()
        #expect(Set(try await store.receivedMessages(ids: ["a1", "a2", "a3", "b1"]).keys) == ["b1"])
    }

    @Test("chunks of different runs handed in while a commit runs share the next transaction", .timeLimit(.minutes(1)))
    func runsShareWaitingTransactions() async throws {
        let store = try KeyStore.inMemory()
        let committer = ChunkCommitter(store: store)
        // Hold the store's writer so that the first chunk's commit cannot finish while the
        // other two are handed in.
        let (release, blocker) = await Self.holdWriter(of: store)
        let first = committer.startRun()
        let second = committer.startRun()
        let third = committer.startRun()
        let firstTicket = first.submit([Self.row("a1")])
        let secondTicket = second.submit([Self.row("b1")])
        let thirdTicket = third.submit([Self.failingWrite("c1")])
        release.signal()
        try await blocker.value
        // The second run's chunk is valid; it fails only because it shares the third's transaction.
        await #expect(throws: KeyStoreError.self) { try await thirdTicket.value() }
        await #expect(throws: KeyStoreError.self) { try await secondTicket.value() }
        _ = try? await firstTicket.value()
        for run in [first, second, third] { run.end() }
        #expect(try await store.receivedMessages(ids: ["b1", "c1"]).isEmpty)
        // A new run commits as usual.
        #expect(try await committer.startRun().submit([Self.row("d1")]).value() == [.stored])
    }

    @Test("a last chunk is committed before its hand-in returns when no commit runs, and queues behind one that runs", .timeLimit(.minutes(1)))
    func lastChunkCommitsInPlaceOrQueues() async throws {
        let store = try KeyStore.inMemory()
        let committer = ChunkCommitter(store: store)
        let run = committer.startRun()
        // Nothing runs: committed before commitLast returns.
        let alone = await run.commitLast([Self.row("a1")])
        #expect(try alone.result?.get() == [.stored])
        // A commit runs (held on the store's writer): the last chunk queues behind it, in order.
        let (release, blocker) = await Self.holdWriter(of: store)
        let earlier = run.submit([Self.row("a2")])
        let last = await run.commitLast([Self.row("a3")])
        #expect(last.result == nil)
        release.signal()
        try await blocker.value
        #expect(try await earlier.value() == [.stored])
        #expect(try await last.value() == [.stored])
        run.end()
        #expect(Set(try await store.receivedMessages(ids: ["a1", "a2", "a3"]).keys) == ["a1", "a2", "a3"])
    }

    @Test("a cancelled lane's last chunk fails alone; the run behind it and other runs commit")
    func cancelledLastChunkFailsOnlyItsRun() async throws {
        let store = try KeyStore.inMemory()
        let committer = ChunkCommitter(store: store)
        let cancelled = committer.startRun()
        let lane = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return await cancelled.commitLast([Self.row("a1")])
        }
        let ticket = await lane.value
        await #expect(throws: CancellationError.self) { try await ticket.value() }
        // Its run is failed from then on; another run is not.
        await #expect(throws: CancellationError.self) { try await cancelled.submit([Self.row("a2")]).value() }
        #expect(try await committer.startRun().commitLast([Self.row("b1")]).value() == [.stored])
        cancelled.end()
        #expect(Set(try await store.receivedMessages(ids: ["a1", "a2", "b1"]).keys) == ["b1"])
    }

    @Test("chunks of different runs handed in within the window share one transaction; an urge ends the window", .timeLimit(.minutes(1)))
    func chunksWithinTheWindowShareATransaction() async throws {
        let store = try KeyStore.inMemory()
        let clock = PhaseClock()
        let committer = ChunkCommitter(store: store, clock: clock, window: CommitWindow(maxRows: 5_000, maxWait: .seconds(30)))
        let first = committer.startRun()
        let second = committer.startRun()
        let firstTicket = first.submit([Self.row("a1"), Self.row("a2")])
        try await Task.sleep(for: .milliseconds(20))
        let secondTicket = second.submit([Self.row("b1")])
        try await Task.sleep(for: .milliseconds(20))
        // Nothing waits for them and no bound is reached: nothing is committed, nothing told.
        #expect(firstTicket.result == nil && secondTicket.result == nil)
        #expect(try await store.receivedMessages(ids: ["a1", "a2", "b1"]).isEmpty)
        second.urge()  // a lane is about to wait for its chunk
        #expect(try await firstTicket.value() == [.stored, .stored])
        #expect(try await secondTicket.value() == [.stored])
        #expect(clock.snapshot.transactions == 1 && clock.snapshot.committedWrites == 3)
        // A lone last chunk on an idle committer (a socket frame) commits before its hand-in returns.
        let frame = await first.commitLast([Self.row("a3")])
        #expect(try frame.result?.get() == [.stored])
        #expect(clock.snapshot.transactions == 2)
        first.end()
        second.end()

        // Without a window (the committer before issue 47), the same hand-ins take two transactions.
        let noWindowClock = PhaseClock()
        let noWindow = ChunkCommitter(store: store, clock: noWindowClock, window: .none)
        let (third, fourth) = (noWindow.startRun(), noWindow.startRun())
        let thirdTicket = third.submit([Self.row("c1"), Self.row("c2")])
        try await Task.sleep(for: .milliseconds(20))
        let fourthTicket = fourth.submit([Self.row("d1")])
        _ = try await (thirdTicket.value(), fourthTicket.value())
        #expect(noWindowClock.snapshot.transactions == 2)
        third.end()
        fourth.end()
    }

    @Test("rows past the window's row bound commit without waiting out its time", .timeLimit(.minutes(1)))
    func rowBoundClosesTheWindow() async throws {
        let store = try KeyStore.inMemory()
        let clock = PhaseClock()
        let committer = ChunkCommitter(store: store, clock: clock, window: CommitWindow(maxRows: 3, maxWait: .seconds(30)))
        let run = committer.startRun()
        let first = run.submit([Self.row("a1"), Self.row("a2")])
        let second = run.submit([Self.row("a3")])
        let third = run.submit([Self.row("a4")])
        // The first two chunks fill the bound: committed together, within the time limit.
        #expect(try await first.value() == [.stored, .stored])
        #expect(try await second.value() == [.stored])
        #expect(clock.snapshot.transactions == 1 && clock.snapshot.committedWrites == 3)
        #expect(third.result == nil)
        run.urge()
        #expect(try await third.value() == [.stored])
        #expect(clock.snapshot.transactions == 2)
        run.end()
    }

    @Test("on one core a lane's last chunk waits while another lane still works, then shares its transaction", .timeLimit(.minutes(1)))
    func lastChunkWaitsForWorkingLanes() async throws {
        let store = try KeyStore.inMemory()
        let clock = PhaseClock()
        let committer = ChunkCommitter(store: store, clock: clock, window: CommitWindow(maxRows: 5_000, maxWait: .seconds(30)), cores: 1)
        let (first, second) = Self.twoLanes(of: committer)
        // The first lane is done and waits; the second still decrypts: nothing commits yet.
        first.laneWaits()
        let last = await first.commitLast([Self.row("a1")])
        try await Task.sleep(for: .milliseconds(30))
        #expect(last.result == nil)
        #expect(try await store.receivedMessages(ids: ["a1"]).isEmpty)
        // The second lane hands in its chunk and waits too: both commit, in one transaction.
        let other = second.submit([Self.row("b1"), Self.row("b2")])
        second.laneWaits()
        #expect(try await last.value() == [.stored])
        #expect(try await other.value() == [.stored, .stored])
        #expect(clock.snapshot.transactions == 1 && clock.snapshot.committedWrites == 3)
        Self.end([first, second], waiting: [first, second])
    }

    @Test("with a core to spare, a waited-for chunk commits beside a lane that still works", .timeLimit(.minutes(1)))
    func spareCoreCommitsBesideAWorkingLane() async throws {
        let store = try KeyStore.inMemory()
        let clock = PhaseClock()
        let committer = ChunkCommitter(store: store, clock: clock, window: CommitWindow(maxRows: 5_000, maxWait: .seconds(30)), cores: 2)
        let (first, second) = Self.twoLanes(of: committer)
        first.laneWaits()
        // One lane works, one core is free for the commit: no waiting out the window.
        #expect(try await first.commitLast([Self.row("a1")]).value() == [.stored])
        #expect(clock.snapshot.transactions == 1)
        Self.end([first, second], waiting: [first])
    }

    @Test("a lane that never waits holds a last chunk back no longer than the window", .timeLimit(.minutes(1)))
    func workingLaneHoldsNoLongerThanTheWindow() async throws {
        let store = try KeyStore.inMemory()
        let committer = ChunkCommitter(store: store, window: CommitWindow(maxRows: 5_000, maxWait: .milliseconds(50)), cores: 1)
        // The second lane never hands in or waits (a lane waiting for the directory, say).
        let (first, second) = Self.twoLanes(of: committer)
        first.laneWaits()
        let started = ContinuousClock.now
        #expect(try await first.commitLast([Self.row("a1")]).value() == [.stored])
        #expect(ContinuousClock.now - started >= .milliseconds(45))
        Self.end([first, second], waiting: [first])
    }

    @Test("on one core a lane queued to start holds a last chunk back until it hands in; then they share a transaction", .timeLimit(.minutes(1)))
    func queuedLaneHoldsTheWindow() async throws {
        let clock = PhaseClock()
        let (first, second, last) = try await Self.lastChunkBesideAQueuedLane(clock: clock)
        // The queued lane starts, hands in its last chunk and waits: both commit in one transaction.
        second.queuedLaneStarted()
        second.laneWaits()
        let other = await second.commitLast([Self.row("b1")])
        #expect(try await last.value() == [.stored])
        #expect(try await other.value() == [.stored])
        #expect(clock.snapshot.transactions == 1 && clock.snapshot.committedWrites == 2)
        Self.end([first, second], waiting: [first, second])
    }

    @Test("a queued lane that waits for its device's lock no longer holds a last chunk back", .timeLimit(.minutes(1)))
    func blockedQueuedLaneReleasesTheWindow() async throws {
        let (first, second, last) = try await Self.lastChunkBesideAQueuedLane(clock: PhaseClock())
        // The queued lane's device is locked by the first lane, which waits for this commit:
        // without this, the chunk would wait out the 600 s window (the test's time limit fails first).
        second.queuedLaneBlocked()
        #expect(try await last.value() == [.stored])
        first.laneStopsWaiting()
        first.laneEnded()
        first.end()
        second.end()
    }

    /// On one core, with a 600 s window: a run whose one lane started, handed in its last chunk
    /// (`a1`) and waits, beside a run with one lane spawned whose task has not run yet (queued);
    /// the chunk is checked to wait for it.
    private static func lastChunkBesideAQueuedLane(clock: PhaseClock) async throws
        -> (first: ChunkCommitter.Run, queued: ChunkCommitter.Run, last: CommitTicket) {
        let committer = ChunkCommitter(store: try KeyStore.inMemory(), clock: clock,
                                       window: CommitWindow(maxRows: 5_000, maxWait: .seconds(600)), cores: 1)
        let first = committer.startRun()
        first.laneStarted()
        let second = committer.startRun()
        second.lanesQueued(1)
        first.laneWaits()
        let last = await first.commitLast([Self.row("a1")])
        try await Task.sleep(for: .milliseconds(30))
        #expect(last.result == nil)
        return (first, second, last)
    }

    /// Two runs of `committer`, each with one lane started.
    private static func twoLanes(of committer: ChunkCommitter) -> (ChunkCommitter.Run, ChunkCommitter.Run) {
        let runs = (committer.startRun(), committer.startRun())
        runs.0.laneStarted()
        runs.1.laneStarted()
        return runs
    }

    /// Ends the lanes and runs of ``twoLanes(of:)`` (`waiting`: those whose lane waits).
    private static func end(_ runs: [ChunkCommitter.Run], waiting: [ChunkCommitter.Run]) {
        for run in waiting { run.laneStopsWaiting() }
        for run in runs {
            run.laneEnded()
            run.end()
        }
    }

    /// Holds `store`'s writer in a write that waits for `release`; returns once it holds it.
    private static func holdWriter(of store: KeyStore) async -> (release: DispatchSemaphore, blocker: Task<Void, any Error>) {
        let started = Signal()
        let release = DispatchSemaphore(value: 0)
        let blocker = Task {
            try await store.write { _ in
                started.fire()
                release.wait()
            }
        }
        await started.wait()
        return (release, blocker)
    }

    /// An undecryptable row `id` (a write without key effects).
    private static func row(_ id: String) -> ReceiveWrite {
        ReceiveWrite(action: .outcome(message(id, state: .undecryptable(reason: "malformed"), plaintext: nil)), facts: ReceivedFacts(kind: .message))
    }

    /// A decryption that consumed a one-time prekey the store never had: the transaction
    /// holding it fails (``KeyStoreError/missingRecord(_:id:)``).
    private static func failingWrite(_ id: String) -> ReceiveWrite {
        let row = message(id, state: .decrypted, plaintext: SecretBytes(copying: Array("text".utf8)))
        return ReceiveWrite(action: .decrypted(DecryptionCommit(message: row, consumedOneTimePrekeyID: 9_999, processedAt: row.createdAt)),
                            facts: ReceivedFacts(kind: .message))
    }

    private static func message(_ id: String, state: TimelineState, plaintext: SecretBytes?) -> TimelineMessage {
        TimelineMessage(messageID: id, channelID: "channel-1", senderUserID: "user-b", senderDeviceID: "device-b",
                        createdAt: StoreTime(microseconds: 1_000), contentHash: SHA256.hash(Array(id.utf8)), state: state, plaintext: plaintext)
    }
}
