import E2EEMessaging

/// The soak's end check: for each channel, every member device's timeline is the same list
/// (ids, times, texts) in `(created_at, id)` order, every message readable, the texts exactly
/// those sent (each once), and the ids exactly the server's messages (SKDs aside).
struct SoakVerdict {
    let run: SoakRun

    /// Everything that is wrong; empty when the run is good.
    /// - Throws: store and server errors.
    func problems() async throws -> [String] {
        var problems: [String] = []
        for target in SoakPlan.Target.allCases {
            problems += try await check(target)
        }
        return problems
    }

    private struct Line: Equatable {
        let id: String
        let createdAt: ServerTimestamp
        let text: String?
    }

    private func check(_ target: SoakPlan.Target) async throws -> [String] {
        let channelID = run.channelID(target)
        let sent = run.plan.texts(to: target).sorted()
        let members = run.accounts.indices.filter { target == .group || $0 != SoakPlan.groupOnlyDevice }
        var problems: [String] = []
        var reference: [Line]?
        for device in members {
            let name = "\(SoakPlan.devices[device]) \(target.rawValue)"
            let items = try await run.accounts[device].timeline(channelID: channelID, limit: 100_000)
            let unreadable = items.filter { $0.state != .decrypted }
            if !unreadable.isEmpty { problems.append("\(name): \(unreadable.count) not readable (\(unreadable.prefix(3).map { "\($0.state)" }))") }
            let texts = items.compactMap(\.text)
            if texts.sorted() != sent {
                let missing = Set(sent).subtracting(texts).count
                problems.append("\(name): \(texts.count) texts, \(Set(texts).count) distinct, \(missing) of \(sent.count) sent missing")
            }
            if !TimelineChecks.isOrdered(items) {
                problems.append("\(name): not in (created_at, id) order")
            }
            let lines = items.map { Line(id: $0.messageID.rawValue, createdAt: $0.createdAt, text: $0.text) }
            if let reference, lines != reference {
                problems.append("\(name): differs from \(SoakPlan.devices[members[0]]) (\(lines.count) vs \(reference.count) items)")
            }
            reference = reference ?? lines
        }
        let onServer = try await serverMessageIDs(channelID.rawValue)
        if let reference, reference.map(\.id) != onServer {
            problems.append("\(target.rawValue): the timeline (\(reference.count)) is not the server's messages (\(onServer.count)) in order")
        }
        return problems
    }

    /// The server's messages of the channel that are not SKDs or alice's control rows, in order, read by alice.
    private func serverMessageIDs(_ channelID: String) async throws -> [String] {
        try await TimelineChecks.serverTimeline(ChannelID(channelID), reader: try await run.harness.reader(of: run.accounts[0]), shownBy: run.accounts[0]).map(\.id.rawValue)
    }
}
