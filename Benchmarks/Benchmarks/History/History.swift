import Benchmark
import E2EECrypto
@_spi(StoreInternals) import E2EEKeyStore
import Foundation

// The history part of a link transfer at the store (issue 46, docs/spec/protocol.md §11.7–§11.9),
// on temporary files (removed after each sample):
// - "History produce N": one sample = `produceHistorySnapshot(window: .everything)` over a
//   primary's store of N decrypted messages (10 channels, ~100-byte texts, filled in setup), each
//   record encoded and hashed into a running digest as the transfer's spool does.
// - "History import N": one sample = N message records imported into a fresh store, chunk by
//   chunk (380 records, about one 69,000-byte chunk), one transaction a chunk. The records are
//   made chunk by chunk inside the sample (so the input is never resident); the time spent
//   making them is subtracted (history.sh prints records/s from the custom metric).
// Memory: the process's peak resident set during the sample, reset before it
// (`/proc/self/clear_refs` 5, after `malloc_trim`), as a custom metric in kB: it must not grow
// from 20,000 to 200,000 records.
let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, HistoryMetrics.recordsPerSecond, HistoryMetrics.peakResidentKB, HistoryMetrics.peakGrowthKB],
        timeUnits: .milliseconds,
        warmupIterations: 0,
        scalingFactor: .one,
        maxDuration: .seconds(300),
        maxIterations: ProcessInfo.processInfo.environment["HISTORY_SAMPLES"].flatMap(Int.init) ?? 3
    )
    for count in [20_000, 200_000] {
        registerProduce(count: count)
        registerImport(count: count)
    }
}

/// The figures each sample records.
enum HistoryMetrics {
    static let recordsPerSecond = BenchmarkMetric.custom("records/s")
    /// Peak resident set during the sample (VmHWM after a reset), kB.
    static let peakResidentKB = BenchmarkMetric.custom("peak resident kB")
    /// That peak less the resident set when the sample began, kB.
    static let peakGrowthKB = BenchmarkMetric.custom("peak growth kB")
}

/// Reads and resets the process's peak resident set (Linux; zeros elsewhere).
enum ResidentMemory {
    static func releaseFreedMemory() {
        #if canImport(Glibc)
        typealias Trim = @convention(c) (Int) -> Int32
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "malloc_trim") else { return }
        _ = unsafeBitCast(symbol, to: Trim.self)(0)
        #endif
    }

    /// Resets VmHWM to the current resident set and returns that (kB).
    static func resetPeak() -> Int {
        releaseFreedMemory()
        try? "5".write(toFile: "/proc/self/clear_refs", atomically: false, encoding: .utf8)
        return field("VmRSS")
    }

    /// VmHWM, kB.
    static func peak() -> Int { field("VmHWM") }

    private static func field(_ name: String) -> Int {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return 0 }
        for line in status.split(separator: "\n") where line.hasPrefix(name + ":") {
            return Int(line.split(separator: " ").dropFirst().first { !$0.isEmpty }.map(String.init) ?? "") ?? 0
        }
        return 0
    }
}

/// The values every sample builds from.
enum HistoryInput {
    static let channels = (0..<10).map { _ in UUID().uuidString.lowercased() }
    static let sender = UUID().uuidString.lowercased(), device = UUID().uuidString.lowercased()
    static let primary = UUID().uuidString.lowercased()
    static let start: Int64 = 1_800_000_000_000_000

    static func id() -> String { UUID().uuidString.lowercased() }

    static func payload(_ index: Int) throws -> SecretBytes {
        let text = "History message \(index): " + String(repeating: "x", count: 60)
        return try MessagePayload(id: WireUUID(text: id()), timestamp: 1_800_000_000_000 + Int64(index), text: text).encodedJSON()
    }

    /// A store on a temporary file, removed by `remove`.
    static func makeStore() throws -> (KeyStore, URL) {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("history-bench-\(id())", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return (try KeyStore.open(at: directory.appendingPathComponent("store.sqlite"), key: .random()), directory)
    }

    /// `count` decrypted messages, stored as the receive pipeline stores them, 1,000 a batch.
    static func fill(_ store: KeyStore, count: Int) async throws {
        var index = 0
        while index < count {
            var writes: [ReceiveWrite] = []
            for n in index..<min(index + 1_000, count) {
                let messageID = id()
                let payloadID = id()
                let row = TimelineMessage(messageID: messageID, channelID: channels[n % channels.count], senderUserID: sender, senderDeviceID: device,
                                          createdAt: StoreTime(microseconds: start + Int64(n) * 1_000_000), contentHash: SHA256.hash(Array(messageID.utf8)),
                                          state: .decrypted, plaintext: try payload(n))
                writes.append(ReceiveWrite(action: .decrypted(DecryptionCommit(message: row, processedAt: row.createdAt)),
                                           facts: ReceivedFacts(kind: .message, payloadID: payloadID)))
            }
            _ = try await store.storeReceiveBatch(writes)
            index += writes.count
        }
    }

    /// The message records of one chunk.
    static func chunk(from start: Int, count: Int) throws -> [TransferRecord] {
        try (start..<start + count).map { n in
            .message(try MessageRecord(channelID: WireUUID(text: channels[n % channels.count]), messageID: WireUUID(text: id()),
                                       senderID: WireUUID(text: sender), senderDeviceID: WireUUID(text: device),
                                       createdAt: UInt64(self.start + Int64(n) * 1_000_000), edited: false, payload: payload(n)))
        }
    }
}

/// A value set in setup and read by the samples.
final class Held<Value: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var _value: Value
    init(_ value: Value) { _value = value }
    var value: Value {
        get { lock.withLock { _value } }
        set { lock.withLock { _value = newValue } }
    }
}

/// The spool's stand-in: each record encoded, its length counted, its bytes hashed (one running
/// SHA-256 state per batch would need an incremental API; a digest of digests costs the same).
final class Spool: @unchecked Sendable {
    private let lock = NSLock()
    private var bytes = 0
    private var records = 0
    private var digest = [UInt8](repeating: 0, count: 32)
    func append(_ batch: [TransferRecord]) {
        lock.withLock {
            for record in batch {
                let encoded = record.encoded()
                bytes += encoded.count
                records += 1
                digest = SHA256.hash(digest + SHA256.hash(encoded))
            }
        }
    }
    var count: Int { lock.withLock { records } }
}

func registerProduce(count: Int) {
    let primary = Held<(KeyStore, URL)?>(nil)
    Benchmark("History produce \(count)", closure: { benchmark async throws in
        guard let (store, _) = primary.value else { return }
        let spool = Spool()
        let before = ResidentMemory.resetPeak()
        let started = ContinuousClock.now
        benchmark.startMeasurement()
        let summary = try await store.produceHistorySnapshot(transferID: HistoryInput.id(), window: .everything) { spool.append($0) }
        benchmark.stopMeasurement()
        let elapsed = ContinuousClock.now - started
        let peak = ResidentMemory.peak()
        guard summary.recordCount == count, spool.count == count else { throw HistoryBenchmarkError.wrongCount(summary.recordCount) }
        benchmark.measurement(HistoryMetrics.recordsPerSecond, Int(Double(count) / (Double(elapsed / .microseconds(1)) / 1e6)))
        benchmark.measurement(HistoryMetrics.peakResidentKB, peak)
        benchmark.measurement(HistoryMetrics.peakGrowthKB, peak - before)
    }, setup: {
        let made = try HistoryInput.makeStore()
        try await HistoryInput.fill(made.0, count: count)
        primary.value = made
    }, teardown: {
        if let (_, directory) = primary.value { try? FileManager.default.removeItem(at: directory) }
        primary.value = nil
    })
}

func registerImport(count: Int) {
    Benchmark("History import \(count)", closure: { benchmark async throws in
        let (store, directory) = try HistoryInput.makeStore()
        defer { try? FileManager.default.removeItem(at: directory) }
        let transfer = HistoryInput.id()
        var making = Duration.zero
        var imported = 0
        let before = ResidentMemory.resetPeak()
        let started = ContinuousClock.now
        benchmark.startMeasurement()
        var next = 0
        while next < count {
            let made = ContinuousClock.now
            let chunk = try HistoryInput.chunk(from: next, count: min(380, count - next))
            making += ContinuousClock.now - made
            imported += try await store.importHistory(chunk, transferID: transfer, from: HistoryInput.primary).inserted
            next += chunk.count
        }
        benchmark.stopMeasurement()
        let elapsed = ContinuousClock.now - started - making
        let peak = ResidentMemory.peak()
        guard imported == count else { throw HistoryBenchmarkError.wrongCount(imported) }
        benchmark.measurement(HistoryMetrics.recordsPerSecond, Int(Double(count) / (Double(elapsed / .microseconds(1)) / 1e6)))
        benchmark.measurement(HistoryMetrics.peakResidentKB, peak)
        benchmark.measurement(HistoryMetrics.peakGrowthKB, peak - before)
    })
}

enum HistoryBenchmarkError: Error {
    case wrongCount(Int)
}
