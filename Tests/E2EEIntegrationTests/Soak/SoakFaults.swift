import E2EEDevServer

/// One fault the soak injects into the development server.
enum SoakFault: Sendable, Hashable, CustomStringConvertible {
    /// Every open socket drops at once (no close frame).
    case dropAllSockets
    /// One user's sockets drop.
    case dropSockets(user: Int)
    /// That share of event frames is sent twice (0: off).
    case duplicates(Double)
    /// That share of event frames is held back behind the next one (0: off).
    case reorders(Double)
    /// Message writes publish first and commit up to this many milliseconds later (0: off).
    case commitDelays(milliseconds: Int)
    /// New messages share `created_at` in runs of this length (0: off).
    case ties(run: Int)
    /// The server's pub/sub dies: sockets stay open and deaf until a new socket connects.
    case pubSubDies

    var description: String {
        switch self {
        case .dropAllSockets: "drop all sockets"
        case .dropSockets(let user): "drop sockets of user \(user)"
        case .duplicates(let share): "duplicates \(Int(share * 100)) %"
        case .reorders(let share): "reorders \(Int(share * 100)) %"
        case .commitDelays(let limit): "commit delays up to \(limit) ms"
        case .ties(let run): "ties in runs of \(run)"
        case .pubSubDies: "pub/sub dies"
        }
    }

    /// The kind, for counting.
    var kind: String {
        switch self {
        case .dropAllSockets, .dropSockets: "socket drops"
        case .duplicates: "duplicated events"
        case .reorders: "reordered events"
        case .commitDelays: "commit-after-publish delays"
        case .ties: "tied timestamps"
        case .pubSubDies: "pub/sub deaths"
        }
    }

    /// Switches the fault on (or off) in `faults`; `userIDs` name the users by index.
    func apply(to faults: FaultInjector, userIDs: [String]) async {
        switch self {
        case .dropAllSockets: await faults.dropOpenSockets()
        case .dropSockets(let user): await faults.dropOpenSockets(ofUser: userIDs[user % userIDs.count])
        case .duplicates(let share): await faults.duplicateEvents(probability: share)
        case .reorders(let share): await faults.reorderEvents(probability: share)
        case .commitDelays(let limit): await faults.delayCommits(upTo: limit > 0 ? .milliseconds(limit) : nil)
        case .ties(let run): await faults.tieTimestamps(runLength: run > 1 ? run : nil)
        case .pubSubDies: await faults.killPubSub()
        }
    }
}

/// The seeded sequence of faults and when each comes: after every few messages queued.
struct SoakFaultSequence: Sendable {
    private var random: SeededRandom

    /// The sequence for `seed`.
    init(seed: UInt64) { random = SeededRandom(seed: seed ^ 0xFA17_5EED) }

    /// How many more messages go before the next fault.
    mutating func nextStride() -> Int { Int.random(in: 2...7, using: &random) }

    /// The next fault: drops two times in seven, a pub/sub death one time in seven, otherwise a
    /// switch turned on (two times in three) or off.
    mutating func nextFault(users: Int) -> SoakFault {
        let on = Int.random(in: 0..<3, using: &random) > 0
        switch Int.random(in: 0..<7, using: &random) {
        case 6: return .pubSubDies
        case 0: return .dropAllSockets
        case 1: return .dropSockets(user: Int.random(in: 0..<users, using: &random))
        case 2: return .duplicates(on ? Double.random(in: 0.2...0.8, using: &random) : 0)
        case 3: return .reorders(on ? Double.random(in: 0.2...0.8, using: &random) : 0)
        case 4: return .commitDelays(milliseconds: on ? Int.random(in: 10...150, using: &random) : 0)
        default: return .ties(run: on ? Int.random(in: 2...5, using: &random) : 0)
        }
    }
}
