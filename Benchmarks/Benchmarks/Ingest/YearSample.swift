import BenchmarkSupport
import E2EECrypto
@_spi(StoreInternals) import E2EEKeyStore
@_spi(Benchmarks) import E2EEMessaging
import Foundation

/// One sample on the store a year of use has filled (``YearStore``, issue 47), run after the
/// empty-store sample when `INGEST_YEAR_STORE=1` (`year-store.sh`), outside package-benchmark's
/// measurement (its own clocks, one line in the sample log):
///
/// 1. the cache copied into a fresh directory, the receiver's keys installed (not timed);
/// 2. **open**: `KeyStore.open` + `Account.open` as an app after a restart (warm page cache),
///    five times, each shut down and closed again; the median, and the peak resident growth of
///    the process over the open (its high-water mark reset first through `/proc/self/clear_refs`);
/// 3. the account opened for good and the workload's channels joined (``ReceivingDevice``);
/// 4. **pages**: `Account.timeline` of a large channel, the newest page of 50 and a page of 50
///    10,000 rows back, 21 times each after one warm-up read; medians (each page checked: 50 rows);
/// 5. the store's size on disk (file, WAL, shared memory);
/// 6. **ingest** of the same 100,000 deliveries as the empty-store sample (same feeding,
///    same checks, the 1,000 filler rows pending left pending), wall, CPU and peak resident growth;
/// 7. the size again (growth per stored row) after a checkpoint;
enum YearSample {
    /// The large channel the pages are read from (a group).
    static let pageChannel = 1
    static let pageReads = 21

    /// Runs the sample on a copy of `base`; the sample-log line.
    static func run(input: IngestInput, cache: YearStore.Cache) async throws -> String {
        let base = cache.file
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("e2ee-ingest-year-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let url = directory.appendingPathComponent("receiver.sqlite")
        try FileManager.default.copyItem(at: base, to: url)
        let key = try YearStore.key()
        do {
            let installing = try KeyStore.open(at: url, key: key)
            try await input.keys.install(into: installing)
            try installing.close()
        } catch {
            try? FileManager.default.removeItem(at: directory)
            throw error
        }
        let server = try IngestServer(traffic: input.traffic, receiver: input.keys.device.userID)
        var opens: [Duration] = []
        var openGrowth = 0
        for _ in 0..<5 {
            let baseline = Memory.resetPeak()
            let start = ContinuousClock.now
            let store = try KeyStore.open(at: url, key: key)
            let account = try await Account.open(server: server, store: store)
            opens.append(ContinuousClock.now - start)
            openGrowth = max(openGrowth, Memory.peak() - baseline)
            await account.shutdown()
            try store.close()
        }
        let device = try await ReceivingDevice.make(store: try KeyStore.open(at: url, key: key), in: directory, keys: input.keys,
                                                    traffic: input.traffic)
        do {
            let line = try await measure(device, input: input, url: url, end: cache.end, opens: opens, openGrowth: openGrowth)
            await device.remove()
            return line
        } catch {
            await device.remove()
            throw error
        }
    }

    private static func measure(_ device: ReceivingDevice, input: IngestInput, url: URL, end: Int64, opens: [Duration], openGrowth: Int) async throws -> String {
        let channel = ChannelID(YearStore.channelID(pageChannel))
        let back = YearStore.largeChannelRows - 10_000
        let deep = TimelinePosition(createdAt: ServerTimestamp(microseconds: YearStore.createdAt(channel: pageChannel, row: back, end: end).microseconds),
                                    messageID: MessageID(YearStore.messageID(channel: pageChannel, row: back)))
        let newest = try await timed(pageReads) {
            let page = try await device.account.timeline(channelID: channel, limit: 50)
            guard page.count == 50 else { throw SetupFailed("the newest page of a large channel holds \(page.count) rows") }
        }
        let deepPage = try await timed(pageReads) {
            let page = try await device.account.timeline(channelID: channel, before: deep, limit: 50)
            guard page.count == 50, page.last?.messageID.rawValue == YearStore.messageID(channel: pageChannel, row: back - 1) else {
                throw SetupFailed("the page 10,000 rows back holds \(page.count) rows ending at \(page.last?.messageID.rawValue ?? "none")")
            }
        }
        // The benchmark's server lists only the workload's channels, so joining them settled the
        // filler's pending rows as departed; the ingest must leave whatever is pending now.
        let pendingBefore = try await device.store.pendingCount()
        let sizeBefore = YearStore.sizeOnDisk(url)
        let baseline = Memory.resetPeak()
        let cpuBefore = ProcessCPU.now()
        let start = ContinuousClock.now
        let tally = try await withTaskExecutorPreference(WorkerPoolExecutor.shared) {
            try await IngestRun.feed(input, account: device.account)
        }
        let wall = ContinuousClock.now - start
        let cpu = ProcessCPU.now() - cpuBefore
        let growth = Memory.peak() - baseline
        let sizeAfterIngest = YearStore.sizeOnDisk(url)
        try await device.store.checkpoint()
        let sizeAfter = YearStore.sizeOnDisk(url)
        try await IngestRun.verify(tally, input: input, store: device.store,
                                   expectedPending: pendingBefore)
        return "year store sample: open median \(milliseconds(median(opens))) ms (\(opens.map(milliseconds).joined(separator: ", "))), "
            + "open peak growth \(openGrowth / 1_000_000) MB; newest page median \(milliseconds(median(newest))) ms, "
            + "page 10000 back median \(milliseconds(median(deepPage))) ms; size before \(sizeBefore / 1_000_000) MB "
            + "(\(sizeBefore / YearStore.rows) B a row); ingest \(seconds(wall)) s (CPU \(seconds(cpu.user + cpu.system)) s), "
            + "peak growth \(growth / 1_000_000) MB; size after ingest \(sizeAfterIngest / 1_000_000) MB, after checkpoint \(sizeAfter / 1_000_000) MB "
            + "(growth \((sizeAfter - sizeBefore) / Traffic.uniqueCount) B a stored row); \(pendingBefore) rows pending before the ingest"
    }

    /// Runs `body` once to warm up, then `count` times; the times.
    private static func timed(_ count: Int, _ body: () async throws -> Void) async throws -> [Duration] {
        try await body()
        var times: [Duration] = []
        for _ in 0..<count {
            let start = ContinuousClock.now
            try await body()
            times.append(ContinuousClock.now - start)
        }
        return times
    }

    private static func median(_ values: [Duration]) -> Duration { values.sorted()[values.count / 2] }

    private static func milliseconds(_ duration: Duration) -> String {
        String(format: "%.2f", Double(duration / .microseconds(1)) / 1_000)
    }
}

/// The process's resident memory high-water mark (`VmHWM`), reset through `/proc/self/clear_refs`.
enum Memory {
    /// Resets the high-water mark to the current resident size; that size.
    static func resetPeak() -> Int {
        try? "5".write(toFile: "/proc/self/clear_refs", atomically: false, encoding: .utf8)
        return ProcessCPU.residentBytes()
    }

    /// The high-water mark since the last reset (or the process start).
    static func peak() -> Int {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
              let kilobytes = line.split(separator: " ").dropFirst().first.flatMap({ Int($0) }) else { return 0 }
        return kilobytes * 1_024
    }
}
