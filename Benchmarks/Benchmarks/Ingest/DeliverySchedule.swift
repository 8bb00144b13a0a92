import Foundation

/// One delivery the transport hands over and the sync engine admits: a socket frame or a REST catch-up.
struct Delivery {
    /// One REST page of a catch-up: its rows (indices into ``Traffic/rows``, oldest first) and
    /// the server's `has_more` (older rows of the channel exist).
    struct Page {
        let rows: [Int]
        let hasMore: Bool
    }

    /// The channel (index into ``Traffic/channels``).
    let channel: Int
    /// The pages of a REST catch-up batch, oldest first (empty for a socket frame).
    let pages: [Page]
    /// The rows (indices into ``Traffic/rows``) of a REST catch-up batch (pages oldest →
    /// newest) or the one row of a socket frame.
    let rows: [Int]
    /// `true` for a `message.new` frame, `false` for a REST catch-up.
    let isSocketFrame: Bool
    /// The catch-up of every channel this REST batch belongs to (nil for a frame): the sync
    /// engine catches the channels of one catch-up up side by side, so their batches overlap.
    var round: Int? = nil
    /// For a frame the socket buffered during a catch-up (a row posted while it ran), that
    /// catch-up's round: such frames wait in the delegate queue together and reach the sync
    /// engine in one call. Nil for a live frame, which arrives on its own.
    var burst: Int? = nil
}

/// How the traffic reaches the device, simulated the way `SyncEngine` and `HistoryCatchUp`
/// deliver it (docs/spec/sync.md guarantee 6): the device is offline while a stretch of rows is posted,
/// reconnects (the socket opens and buffers), catches every channel up over REST — pages of 50
/// from the newest back to the first page holding a row the store knows, ingested as one batch
/// per channel, overlap included, the channels' batches side by side — then drains the buffered frames (rows posted during the
/// catch-up: duplicates when the REST read saw them), receives a few live frames, runs the
/// follow-up catch-up (the newest page of every channel again), and drops. Frames the server
/// sends twice (a duplicated event) make the duplicates exactly the wanted count.
///
/// Every delivery of a row after its first is a duplicate; a row is never missed (each
/// channel's known rows are always a prefix of its history, so each catch-up reaches them).
enum DeliverySchedule {
    /// Rows per REST page (`HistoryCatchUp.pageSize`).
    static let pageSize = 50
    /// Most rows one catch-up fetches (`HistoryCatchUp.limit`).
    static let catchUpLimit = 5_000

    /// How many rows are posted while the device is offline, before each reconnect: 300–2,300,
    /// or `INGEST_OFFLINE_ROWS=min-max` (fewer, larger catch-up rounds with, say, `8000-12000`;
    /// a channel's catch-up still stops at ``catchUpLimit``).
    static var offlineRows: ClosedRange<Int> {
        let defaults = 300...2_300
        guard let text = ProcessInfo.processInfo.environment["INGEST_OFFLINE_ROWS"] else { return defaults }
        let bounds = text.split(separator: "-").compactMap { Int($0) }
        guard bounds.count == 2, bounds[0] >= 1, bounds[0] <= bounds[1] else { return defaults }
        return bounds[0]...bounds[1]
    }

    /// The deliveries of `traffic` with exactly `duplicates` repeated deliveries.
    /// - Throws: ``SetupFailed`` when the simulation alone already repeats more rows than wanted.
    static func make(_ traffic: Traffic, duplicates: Int, random: inout SplitMix64) throws -> [Delivery] {
        let offline = offlineRows
        var simulation = Simulation(traffic: traffic)
        while simulation.posted < traffic.rows.count {
            // Offline while 300–2,300 rows are posted (`INGEST_OFFLINE_ROWS`).
            simulation.post(offline.lowerBound + Int(random.next(upTo: UInt64(offline.count))))
            // Reconnect: up to 20 rows are posted during the catch-up; the REST reads see some.
            let buffered = simulation.posted
            simulation.post(Int(random.next(upTo: 21)))
            simulation.catchUpAll(visible: buffered + Int(random.next(upTo: UInt64(simulation.posted - buffered + 1))))
            for row in buffered..<simulation.posted { simulation.frame(row, burst: simulation.rounds) }
            // Live for 5–15 frames, with the follow-up catch-up somewhere among them.
            let live = 5 + Int(random.next(upTo: 11))
            let followUp = Int(random.next(upTo: UInt64(live + 1)))
            for index in 0...live {
                if index == followUp { simulation.catchUpAll(visible: simulation.posted) }
                guard index < live, simulation.posted < traffic.rows.count else { continue }
                simulation.post(1)
                simulation.frame(simulation.posted - 1)
            }
        }
        simulation.catchUpAll(visible: simulation.posted)
        guard simulation.known.allSatisfy({ $0 }) else { throw SetupFailed("the simulation missed rows") }
        guard simulation.duplicates <= duplicates else {
            throw SetupFailed("the simulation repeats \(simulation.duplicates) rows, more than \(duplicates)")
        }
        return simulation.resendingFrames(duplicates - simulation.duplicates, random: &random)
    }
}

/// The state of the simulated server and store.
private struct Simulation {
    let traffic: Traffic
    /// Rows `0..<posted` (global order) are on the server.
    var posted = 0
    /// Whether the store has seen each row.
    var known: [Bool]
    /// Per channel, its rows' global indices in order.
    let rowsOfChannel: [[Int]]
    /// Per channel, how many of its rows are posted.
    var postedInChannel: [Int]
    var deliveries: [Delivery] = []
    var duplicates = 0
    var rounds = 0

    init(traffic: Traffic) {
        self.traffic = traffic
        known = Array(repeating: false, count: traffic.rows.count)
        var rows: [[Int]] = Array(repeating: [], count: traffic.channels.count)
        for (index, row) in traffic.rows.enumerated() { rows[row.channel].append(index) }
        rowsOfChannel = rows
        postedInChannel = Array(repeating: 0, count: traffic.channels.count)
    }

    mutating func post(_ count: Int) {
        let end = min(traffic.rows.count, posted + count)
        for index in posted..<end { postedInChannel[traffic.rows[index].channel] += 1 }
        posted = end
    }

    /// The socket delivers row `index` (one `message.new` frame).
    mutating func frame(_ index: Int, burst: Int? = nil) {
        deliver(channel: traffic.rows[index].channel, pages: [], rows: [index], isSocketFrame: true, burst: burst)
    }

    /// Every channel paged back over the rows posted before `visible` (global index).
    mutating func catchUpAll(visible: Int) {
        rounds += 1
        for channel in traffic.channels.indices {
            let rows = rowsOfChannel[channel].prefix(postedInChannel[channel]).prefix { $0 < visible }
            var end = rows.endIndex
            var pages: [Delivery.Page] = []
            var fetched = 0
            while end > rows.startIndex, fetched < DeliverySchedule.catchUpLimit {
                let start = max(rows.startIndex, end - DeliverySchedule.pageSize)
                let page = rows[start..<end]
                pages.append(Delivery.Page(rows: Array(page), hasMore: start > rows.startIndex))
                fetched += page.count
                if page.contains(where: { known[$0] }) { break }
                end = start
            }
            guard !pages.isEmpty else { continue }
            pages.reverse()
            deliver(channel: channel, pages: pages, rows: pages.flatMap(\.rows), isSocketFrame: false, round: rounds)
        }
    }

    private mutating func deliver(channel: Int, pages: [Delivery.Page], rows: [Int], isSocketFrame: Bool, round: Int? = nil, burst: Int? = nil) {
        for index in rows {
            if known[index] { duplicates += 1 }
            known[index] = true
        }
        deliveries.append(Delivery(channel: channel, pages: pages, rows: rows, isSocketFrame: isSocketFrame, round: round, burst: burst))
    }

    /// The deliveries with `count` socket frames sent a second time, right after the first,
    /// spread evenly over the frames.
    func resendingFrames(_ count: Int, random: inout SplitMix64) -> [Delivery] {
        let frames = deliveries.indices.filter { deliveries[$0].isSocketFrame }
        guard count > 0, !frames.isEmpty else { return deliveries }
        var copies: [Int: Int] = [:]
        for _ in 0..<count { copies[frames[Int(random.next(upTo: UInt64(frames.count)))], default: 0] += 1 }
        var result: [Delivery] = []
        result.reserveCapacity(deliveries.count + count)
        for (index, delivery) in deliveries.enumerated() {
            result.append(delivery)
            for _ in 0..<(copies[index] ?? 0) { result.append(delivery) }
        }
        return result
    }
}
