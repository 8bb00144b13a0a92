import Benchmark
import BenchmarkSupport
@_spi(Benchmarks) import E2EEMessaging
import Foundation

// Issue 7's receive benchmark: 100,000 messages through merge, decryption and storage.
//
// Input (built once in setup, not measured): 10 sender devices write to one receiving device
// with the protocol code — 8 in two groups (sender keys, rotated every 100 messages, each new
// key distributed in an SKD over the pairwise session) and 2 in two DMs (pairwise sessions) —
// until the server holds 80,000 rows; `DeliverySchedule` then turns them into 100,000
// deliveries (20,000 duplicates) the way the sync engine makes them: REST catch-up batches of
// 50-row pages after each reconnect and single `message.new` frames (DeliverySchedule.swift).
//
// Each delivery is held as the bytes the server sends (issue 29), built once in setup too: a
// frame as the `message.new` frame's text, a REST batch as its pages' JSON bodies
// (ServerBytes.swift).
//
// One sample = a fresh receiving store on disk (sealed at rest; WAL, where GRDB sets synchronous
// NORMAL) with the receiver's account row, identity and prekeys, and an `Account` opened over it
// with a server that lists the senders' bundles (IngestServer.swift) — made before
// `startMeasurement` — then every delivery's bytes through `Account.admitFrames` or
// `Account.admitPages`, which decode them as the connection and the HTTP client do and take the
// account's one way in for posted messages (own echoes, rollback check, pipeline), in the
// order and overlap the sync engine calls it. After the measurement the store is checked:
// 80,000 rows, all decrypted, nothing pending, every outcome as expected, the newest page of
// each channel reading back the texts sent (a sample that loses a message fails).
//
// Metrics: wall clock per sample (`ingest.sh` prints messages/s = 100,000 / wall), the
// process's peak resident memory (sampled; the input itself is resident) and its growth over
// the baseline taken after setup, and two custom figures: the time spent in the REST catch-up
// calls and in the socket-frame calls of the sample (recorded in µs).
let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .throughput, .peakMemoryResident, .peakMemoryResidentDelta, IngestMetrics.restTime,
                  IngestMetrics.frameTime, IngestMetrics.floorTime, IngestMetrics.floorParseTime, IngestMetrics.floorCryptoTime,
                  IngestMetrics.floorInsertTime,
                  IngestMetrics.cpuTime],
        timeUnits: .microseconds,
        warmupIterations: 0,
        scalingFactor: .one,
        maxDuration: .seconds(600),
        // INGEST_SAMPLES overrides the count (a profiling run needs one or two).
        maxIterations: ProcessInfo.processInfo.environment["INGEST_SAMPLES"].flatMap(Int.init) ?? 5
    )
    registerIngestBenchmark()
}

/// The custom per-sample figures (µs).
enum IngestMetrics {
    static let restTime = BenchmarkMetric.custom("REST catch-up time")
    static let frameTime = BenchmarkMetric.custom("socket frame time")
    /// The floor for the same rows (``IngestFloor``), measured in each sample just before the
    /// ingest: its phases together, and each.
    static let floorTime = BenchmarkMetric.custom("floor time")
    static let floorParseTime = BenchmarkMetric.custom("floor parse time")
    static let floorCryptoTime = BenchmarkMetric.custom("floor crypto time")
    static let floorInsertTime = BenchmarkMetric.custom("floor insert time")
    /// The process's CPU time (user + system) during the sample's ingest.
    static let cpuTime = BenchmarkMetric.custom("ingest CPU time")

    /// Whether each sample runs the floor first (`INGEST_FLOOR=0`: not, for a memory-only run).
    static var runsFloor: Bool { ProcessInfo.processInfo.environment["INGEST_FLOOR"] != "0" }

    /// The cores the floor's crypto phase runs on: `INGEST_CORES` (ingest.sh sets it from
    /// `nproc`, which honours `taskset`), or every active core.
    static var cores: Int {
        ProcessInfo.processInfo.environment["INGEST_CORES"].flatMap(Int.init) ?? ProcessInfo.processInfo.activeProcessorCount
    }
}

/// The sample line's words for the small-transaction reference (``IndexedInsertReference``).
private func indexedReference(_ small: Duration) -> String {
    "; the indexed insert at \(IndexedInsertReference.smallTransaction) rows a transaction \(seconds(small)) s"
}

func registerIngestBenchmark() {
    let input = Carried<IngestInput?>(nil)
    let yearStore = Carried<YearStore.Cache?>(nil)
    Benchmark("Ingest 100000 messages", closure: { benchmark async throws in
        guard let input = input.value else { return }
        // The floor first (outside the measurement; its memory handed back before it starts).
        // `INGEST_FLOOR=0` leaves it out (all its phases 0 s): package-benchmark's peak resident
        // growth is a maximum over the whole run since the setup, the floor's included, so only a
        // run without it gives the ingest's figure on that scale.
        let residentBeforeFloor = Memory.resetPeak()
        let floor = IngestMetrics.runsFloor
            ? try IngestFloor.run(input.floor, bytes: input.bytes, messages: input.messageCount, cores: IngestMetrics.cores)
            : IngestFloor.Timing(parse: .zero, crypto: .zero, insert: .zero, keys: .zero, indexedInsert: .zero)
        let floorPeakGrowth = Memory.peak() - residentBeforeFloor
        IngestInput.releaseFreedMemory()
        benchmark.measurement(IngestMetrics.floorTime, Int(floor.total / .microseconds(1)))
        benchmark.measurement(IngestMetrics.floorParseTime, Int(floor.parse / .microseconds(1)))
        benchmark.measurement(IngestMetrics.floorCryptoTime, Int(floor.crypto / .microseconds(1)))
        benchmark.measurement(IngestMetrics.floorInsertTime, Int(floor.insert / .microseconds(1)))
        let device = try await ReceivingDevice.make(keys: input.keys, traffic: input.traffic)
        let tally: IngestTally
        let benchmarkWall: Duration
        let cpu: ProcessCPU
        let phases: ReceivePhaseTimes
        let events: Int
        let monotonicSpan: String
        let ingestPeakGrowth: Int
        let ingestWritten: Int
        do {
            if AllocatorReport.isWanted { SampleLog.append("before the ingest: " + AllocatorReport.line()) }
            let cpuBefore = ProcessCPU.now()
            let started = ContinuousClock.now
            let monotonicStart = monotonicSeconds()
            let residentAtStart = Memory.resetPeak()
            let writtenBefore = ProcessCPU.bytesWritten()
            benchmark.startMeasurement()
            // On a worker pool of every core: package-benchmark blocks one cooperative thread
            // while it measures (WorkerPoolExecutor).
            tally = try await withTaskExecutorPreference(WorkerPoolExecutor.shared) {
                try await IngestRun.feed(input, account: device.account)
            }
            benchmark.stopMeasurement()
            benchmarkWall = ContinuousClock.now - started
            ingestPeakGrowth = Memory.peak() - residentAtStart
            ingestWritten = ProcessCPU.bytesWritten() - writtenBefore
            monotonicSpan = "\(monotonicStart),\(monotonicSeconds())"
            cpu = ProcessCPU.now() - cpuBefore
            phases = device.account.receivePhaseTimes()
            events = await device.finishEvents()
            if AllocatorReport.isWanted { SampleLog.append("after the ingest, store open: " + AllocatorReport.line()) }
            try await IngestRun.verify(tally, input: input, store: device.store)
        } catch {
            await device.remove()
            throw error
        }
        await device.remove()
        if AllocatorReport.isWanted { SampleLog.append("after the account is closed: " + AllocatorReport.line()) }
        // Outside the measurement and after it, so that its writes do not slow the ingest.
        let indexed = IndexedInsertReference.isWanted ? try IndexedInsertReference.runSmall(input.floor.rows) : nil
        benchmark.measurement(IngestMetrics.restTime, Int(tally.restTime / .microseconds(1)))
        benchmark.measurement(IngestMetrics.frameTime, Int(tally.frameTime / .microseconds(1)))
        benchmark.measurement(IngestMetrics.cpuTime, Int((cpu.user + cpu.system) / .microseconds(1)))
        SampleLog.append(
            "ingest sample: \(seconds(benchmarkWall)) s (CPU \(seconds(cpu.user)) s user, \(seconds(cpu.system)) s system), REST calls (\(tally.restCalls)) \(seconds(tally.restTime)) s, "
                + "frames (\(tally.frameCalls)) \(seconds(tally.frameTime)) s; \(tally.decrypted) decrypted, \(tally.keyDistributions) SKDs, "
                + "\(tally.duplicates) duplicates, \(tally.pending) pending on the way; \(events) events; "
                + "the ingest's own peak resident growth \(ingestPeakGrowth / 1_000_000) MB (the floor's \(floorPeakGrowth / 1_000_000) MB); "
                + "\(ingestWritten / 1_000_000) MB written to the store's files (the floor's indexed insert \(floor.indexedInsertWritten / 1_000_000) MB); "
                + "floor \(seconds(floor.total)) s (parse \(seconds(floor.parse)) s, crypto on \(IngestMetrics.cores) cores \(seconds(floor.crypto)) s, "
                + "insert \(seconds(floor.insert)) s\(indexed.map(indexedReference) ?? "")), "
                + "ratio \(String(format: "%.2f", ratio(floor.total, benchmarkWall))); "
                + "stored floor \(seconds(floor.stored)) s (keys \(seconds(floor.keys)) s, indexed insert \(seconds(floor.indexedInsert)) s at "
                + "\(IndexedInsertReference.largeTransaction) rows a transaction), stored ratio \(String(format: "%.2f", ratio(floor.stored, benchmarkWall))); phases summed over \(phases.batches) batches: "
                + "plan \(seconds(phases.plan)) s, prepare \(seconds(phases.prepare)) s, lanes \(seconds(phases.lanes)) s (commits \(seconds(phases.commit)) s: \(phases.transactions) transactions, "
                + "\(phases.transactions > 0 ? phases.committedWrites / phases.transactions : 0) writes each; window ≤ \(ReceivingDevice.commitWindow.maxRows) rows, "
                + "≤ \(ReceivingDevice.commitWindow.maxWait)); monotonic \(monotonicSpan)")
        // The same deliveries into the store a year of use has filled (issue 47), after the
        // sample's measurement: its figures are the sample line's, not package-benchmark's.
        if let cache = yearStore.value {
            IngestInput.releaseFreedMemory()
            SampleLog.append(try await YearSample.run(input: input, cache: cache))
            IngestInput.releaseFreedMemory()
        }
    }, setup: {
        if ProcessInfo.processInfo.environment["INGEST_YEAR_STORE"] == "1" {
            yearStore.value = try await YearStore.cached { SampleLog.append($0) }
        }
        let residentBefore = ProcessCPU.residentBytes()
        let made = try IngestInput.make()
        let summary = made.summary(residentBefore: residentBefore)
        IngestInput.releaseFreedMemory()
        SampleLog.append(summary + ", \(ProcessCPU.residentBytes() / 1_000_000) MB once its garbage is released")
        input.value = made
    }, teardown: {
        input.value = nil
    })
}
