import E2EECrypto
@_spi(StoreInternals) import E2EEKeyStore
@_spi(Benchmarks) import E2EEMessaging
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The input of every sample, built once per process (outside any measurement): the receiver's
/// keys, the 80,000 rows and their 100,000 deliveries.
struct IngestInput {
    /// Repeated deliveries among the 100,000.
    static let duplicates = 20_000

    let keys: ReceiverKeys
    let traffic: Traffic
    let deliveries: [Delivery]
    /// The floor's inputs for the same rows.
    let floor: FloorRows

    /// Builds the input (about 80,000 encryptions and signatures: several seconds).
    static func make() throws -> IngestInput {
        var random = SplitMix64(seed: 0x1_0000_0007)
        let keys = try ReceiverKeys.make(userID: UUID().uuidString.lowercased(), oneTimePrekeys: 20,
                                         now: Int64(Date().timeIntervalSince1970))
        let traffic = try Traffic.make(receiver: keys, random: &random)
        let deliveries = try DeliverySchedule.make(traffic, duplicates: duplicates, random: &random)
        return IngestInput(keys: keys, traffic: traffic, deliveries: deliveries, floor: try FloorRows.make(traffic))
    }

    /// Hands the building's garbage (JSON, encoder buffers) back to the system (glibc's
    /// `malloc_trim`, looked up at run time: its header is not in the Glibc module), so the
    /// resident baseline after setup is the input itself. Call last in the setup.
    static func releaseFreedMemory() {
        #if canImport(Glibc)
        typealias Trim = @convention(c) (Int) -> Int32
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "malloc_trim") else { return }
        _ = unsafeBitCast(symbol, to: Trim.self)(0)
        #endif
    }

    /// Messages delivered in all.
    var messageCount: Int { deliveries.reduce(0) { $0 + $1.rows.count } }
}

/// What one sample's pipeline calls answered, and where the time went.
struct IngestTally {
    var decrypted = 0
    var keyDistributions = 0
    var duplicates = 0
    var pending = 0
    /// Any other outcome, by its description (none is expected).
    var other: [String: Int] = [:]
    var restCalls = 0
    var frameCalls = 0
    var restTime = Duration.zero
    var frameTime = Duration.zero

    mutating func count(_ outcomes: [ReceiveOutcome]) {
        for outcome in outcomes {
            switch outcome.result {
            case .decrypted: decrypted += 1
            case .keyDistribution: keyDistributions += 1
            case .duplicate: duplicates += 1
            case .pending: pending += 1
            default: other["\(outcome.result)", default: 0] += 1
            }
        }
    }
}

/// Feeds the deliveries to the pipeline exactly as `SyncEngine` does: a catch-up's REST batches
/// (one `ingest` of each channel's pages) side by side, at most ``overlappingCatchUps`` at a
/// time, then each socket frame as an `ingest` of its one message, in order. Each call's message
/// array is made just before it (as the transport makes a fresh one per page or frame), so the
/// input holds each row once.
enum IngestRun {
    /// `SyncEngine.overlappingCatchUps`.
    static let overlappingCatchUps = 4

    static func feed(_ input: IngestInput, pipeline: ReceivePipeline) async throws -> IngestTally {
        var tally = IngestTally()
        let clock = ContinuousClock()
        let deliveries = input.deliveries
        var index = 0
        while index < deliveries.count {
            let start = clock.now
            if deliveries[index].isSocketFrame {
                tally.count(try await ingest(deliveries[index], input: input, pipeline: pipeline))
                tally.frameCalls += 1
                tally.frameTime += clock.now - start
                index += 1
                continue
            }
            var end = index + 1
            while end < deliveries.count, deliveries[end].round == deliveries[index].round, !deliveries[end].isSocketFrame { end += 1 }
            let round = Array(deliveries[index..<end])
            let outcomes = try await withThrowingTaskGroup(of: [ReceiveOutcome].self) { group in
                var remaining = round[...]
                func startNext() {
                    guard let delivery = remaining.popFirst() else { return }
                    group.addTask { try await ingest(delivery, input: input, pipeline: pipeline) }
                }
                for _ in 0..<overlappingCatchUps { startNext() }
                var all: [ReceiveOutcome] = []
                while let outcomes = try await group.next() {
                    all += outcomes
                    startNext()
                }
                return all
            }
            tally.count(outcomes)
            tally.restCalls += round.count
            tally.restTime += clock.now - start
            index = end
        }
        return tally
    }

    private static func ingest(_ delivery: Delivery, input: IngestInput, pipeline: ReceivePipeline) async throws -> [ReceiveOutcome] {
        let rows = input.traffic.rows
        let messages = delivery.rows.map { rows[$0].message }
        return try await pipeline.ingest(messages, channel: input.traffic.channels[delivery.channel])
    }

    /// Checks the sample's result (after the measurement): the store holds every chat message
    /// exactly once, decrypted, nothing pending; every row was answered once with its first delivery
    /// and as a duplicate after; the newest page of each channel reads back the texts sent.
    /// - Throws: ``SetupFailed`` describing the first difference.
    static func verify(_ tally: IngestTally, input: IngestInput, store: KeyStore) async throws {
        let traffic = input.traffic
        // Chat messages per channel (SKDs are control rows: not messages of the timeline; each
        // was applied, checked with the outcomes below).
        var expectedRows = Array(repeating: 0, count: traffic.channels.count)
        for row in traffic.rows where row.message.contentType != EnvelopeKind.senderKeyDistribution.contentType {
            expectedRows[row.channel] += 1
        }
        for (index, channel) in traffic.channels.enumerated() {
            let all = try await store.messageCount(channelID: channel.id.rawValue)
            let decrypted = try await store.messageCount(channelID: channel.id.rawValue, state: .decrypted)
            guard all == expectedRows[index], decrypted == all else {
                throw SetupFailed("channel \(index): \(all) messages, \(decrypted) decrypted, \(expectedRows[index]) expected")
            }
        }
        let pending = try await store.pendingCount()
        guard pending == 0 else { throw SetupFailed("\(pending) rows still pending") }
        let readable = tally.decrypted + tally.keyDistributions
        guard readable == Traffic.uniqueCount, tally.keyDistributions == traffic.distributionCount,
              tally.duplicates == IngestInput.duplicates, tally.other.isEmpty else {
            throw SetupFailed("outcomes: \(tally.decrypted) decrypted, \(tally.keyDistributions) SKDs, \(tally.duplicates) duplicates, "
                              + "\(tally.pending) pending, other \(tally.other)")
        }
        let reader = TimelineReader(store: store)
        for channel in traffic.channels {
            let page = try await reader.page(channelID: channel.id, limit: 50)
            guard page.count == 50 else { throw SetupFailed("a page of \(page.count)") }
            for item in page where item.text != traffic.texts[item.messageID.rawValue] {
                throw SetupFailed("message \(item.messageID) reads back another text")
            }
        }
    }
}
