import E2EECrypto
@_spi(StoreInternals) import E2EEKeyStore
@_spi(Benchmarks) import E2EEMessaging
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The input of every sample, built once per process (outside any measurement): the receiver's
/// keys, the 80,000 rows, their 100,000 deliveries and each delivery's bytes as the server
/// sends them.
struct IngestInput {
    /// Repeated deliveries among the 100,000.
    static let duplicates = 20_000

    /// What the transport hands over for one delivery.
    enum Bytes {
        /// A socket frame's text (`message.new`).
        case frame(String)
        /// The JSON bodies of a REST catch-up's pages, oldest first.
        case pages([[UInt8]])

        /// Every byte of it (frame text as UTF-8).
        var byteCount: Int {
            switch self {
            case .frame(let text): text.utf8.count
            case .pages(let bodies): bodies.reduce(0) { $0 + $1.count }
            }
        }
    }

    let keys: ReceiverKeys
    let traffic: Traffic
    let deliveries: [Delivery]
    /// The bytes of each of ``deliveries``, in the same order (a frame sent twice is the same
    /// string twice).
    let bytes: [Bytes]
    /// The floor's inputs for the same rows.
    let floor: FloorRows

    /// Builds the input (about 80,000 encryptions and signatures, then the JSON of every
    /// delivery: several seconds).
    static func make() throws -> IngestInput {
        var random = SplitMix64(seed: 0x1_0000_0007)
        let keys = try ReceiverKeys.make(userID: UUID().uuidString.lowercased(), oneTimePrekeys: 20,
                                         now: Int64(Date().timeIntervalSince1970))
        let traffic = try Traffic.make(receiver: keys, random: &random)
        let deliveries = try DeliverySchedule.make(traffic, duplicates: duplicates, random: &random)
        let bytes = try bytes(of: deliveries, traffic: traffic)
        let floor = try FloorRows.make(traffic)
        return IngestInput(keys: keys, traffic: traffic.withoutRows(), deliveries: deliveries, bytes: bytes, floor: floor)
    }

    /// The server's bytes for each delivery: a frame's text per row (made once, shared by its
    /// repeats), a page body per REST page.
    private static func bytes(of deliveries: [Delivery], traffic: Traffic) throws -> [Bytes] {
        var frames: [Int: String] = [:]
        return try deliveries.map { delivery in
            guard delivery.isSocketFrame else {
                return .pages(try delivery.pages.map { page in
                    try ServerBytes.page(page.rows.map { traffic.rows[$0].message }, hasMore: page.hasMore)
                })
            }
            guard let row = delivery.rows.first, delivery.rows.count == 1 else { throw SetupFailed("a frame of \(delivery.rows.count) rows") }
            if let text = frames[row] { return .frame(text) }
            let text = try ServerBytes.frame(traffic.rows[row].message)
            frames[row] = text
            return .frame(text)
        }
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

/// What one sample's calls answered, and where the time went.
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

    /// Counts the outcomes of admitted bytes; bytes that were not admitted count as "other".
    mutating func count(_ result: ReceivedBytesResult) {
        guard case .admitted(let outcomes) = result else {
            other["not admitted: \(result)".prefix(120).description, default: 0] += 1
            return
        }
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

/// Feeds the deliveries' bytes to the account exactly as the transport and `SyncEngine` hand
/// them over: a catch-up's REST batches (each channel's page bodies decoded and admitted in one
/// call) side by side, at most ``overlappingCatchUps`` at a time, then the socket frames: those
/// buffered during the catch-up, which queued up meanwhile, decoded and admitted as the sync
/// engine takes them from the delegate queue (one call, each channel's messages together, in
/// order), each live frame on its own — through
/// `Account.admitPages` and `Account.admitFrames`, which decode as the HTTP client and the
/// connection decode and then take the account's one way in for posted messages. The decoding is timed with the ingest.
enum IngestRun {
    /// `SyncEngine.overlappingCatchUps`.
    static let overlappingCatchUps = 4

    static func feed(_ input: IngestInput, account: Account) async throws -> IngestTally {
        var tally = IngestTally()
        // INGEST_FRAME_MARKS names a file for each frame call's span on CLOCK_MONOTONIC (to cut a
        // `perf record -k mono` profile to the frames alone).
        let marksPath = ProcessInfo.processInfo.environment["INGEST_FRAME_MARKS"]
        var frameMarks: [String]? = marksPath == nil ? nil : []
        defer {
            if let marksPath, let frameMarks { try? frameMarks.joined(separator: "\n").write(toFile: marksPath, atomically: true, encoding: .utf8) }
        }
        let clock = ContinuousClock()
        let deliveries = input.deliveries
        var index = 0
        while index < deliveries.count {
            let start = clock.now
            if deliveries[index].isSocketFrame {
                // The frames buffered during a catch-up wait in the connection's delegate queue
                // together and reach the sync engine as one call; a live frame comes alone.
                var end = index + 1
                if let burst = deliveries[index].burst {
                    while end < deliveries.count, deliveries[end].isSocketFrame, deliveries[end].burst == burst { end += 1 }
                }
                let frames = try (index..<end).map { delivery -> (text: String, channel: ReceivingChannel) in
                    guard case .frame(let text) = input.bytes[delivery] else { throw SetupFailed("delivery \(delivery) is not a frame") }
                    return (text, input.traffic.channels[deliveries[delivery].channel])
                }
                let markStart = frameMarks == nil ? "" : monotonicSeconds()
                try await account.admitFrames(frames).forEach { tally.count($0) }
                frameMarks?.append("\(markStart),\(monotonicSeconds())")  // not evaluated without marks
                tally.frameCalls += 1
                tally.frameTime += clock.now - start
                index = end
                continue
            }
            var end = index + 1
            while end < deliveries.count, deliveries[end].round == deliveries[index].round, !deliveries[end].isSocketFrame { end += 1 }
            let results = try await withThrowingTaskGroup(of: ReceivedBytesResult.self) { group in
                var remaining = index..<end
                func startNext() {
                    guard let delivery = remaining.popFirst() else { return }
                    group.addTask { try await admitPages(delivery, input: input, account: account) }
                }
                for _ in 0..<overlappingCatchUps { startNext() }
                var all: [ReceivedBytesResult] = []
                while let result = try await group.next() {
                    all.append(result)
                    startNext()
                }
                return all
            }
            results.forEach { tally.count($0) }
            tally.restCalls += end - index
            tally.restTime += clock.now - start
            index = end
        }
        return tally
    }

    /// REST delivery `index`'s page bodies through the account's entry for them.
    private static func admitPages(_ index: Int, input: IngestInput, account: Account) async throws -> ReceivedBytesResult {
        guard case .pages(let bodies) = input.bytes[index] else { throw SetupFailed("delivery \(index) is not a REST batch") }
        return try await account.admitPages(bodies, channel: input.traffic.channels[input.deliveries[index].channel])
    }

    /// Checks the sample's result (after the measurement): the store holds every chat message
    /// exactly once, decrypted, nothing pending; every row was answered once with its first delivery
    /// and as a duplicate after; the newest page of each channel reads back the texts sent.
    /// - Throws: ``SetupFailed`` describing the first difference.
    static func verify(_ tally: IngestTally, input: IngestInput, store: KeyStore, expectedPending: Int = 0) async throws {
        let traffic = input.traffic
        // Chat messages per channel (SKDs are control rows: not messages of the timeline; each
        // was applied, checked with the outcomes below).
        let expectedRows = traffic.chatMessages
        for (index, channel) in traffic.channels.enumerated() {
            let all = try await store.messageCount(channelID: channel.id.rawValue)
            let decrypted = try await store.messageCount(channelID: channel.id.rawValue, state: .decrypted)
            guard all == expectedRows[index], decrypted == all else {
                throw SetupFailed("channel \(index): \(all) messages, \(decrypted) decrypted, \(expectedRows[index]) expected")
            }
        }
        let pending = try await store.pendingCount()
        guard pending == expectedPending else { throw SetupFailed("\(pending) rows pending, \(expectedPending) expected") }
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
