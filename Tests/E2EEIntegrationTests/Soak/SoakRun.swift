import E2EEDevServer
import E2EEMessaging
import E2EETestSupport
import E2EETransport

/// One soak run: five devices of three users connected to the development server through the
/// real realtime connection, a DM (alice–bob) and a group (alice, bob, carol), the plan's
/// messages sent phase by phase while the seeded faults are injected.
struct SoakRun: Sendable {
    /// The scaled-down docs/spec/sync.md timings, the deaf-socket rules scaled down too (the soak kills
    /// the server's pub/sub, and another device's new socket heals it): a missing echo after 3 s,
    /// an echo check after 2.25–3 s of quiet (and, were the checks found unsupported, a light REST
    /// check every 3 s with a 2 s grace; reordered events are held up to 0.5 s), and the socket's
    /// confirmation read 3 s after a delivery.
    static let policy: ConnectionPolicy = {
        var policy = ConnectionPolicy.scaledDown
        policy.echoTimeout = .seconds(3)
        policy.echoCheckInterval = .seconds(3)
        policy.deafCheckInterval = .seconds(3)
        policy.deafGrace = .seconds(2)
        policy.socketConfirmationDelay = .seconds(3)
        return policy
    }()

    /// The reference server's quirks that shape receiving (the late subscribe after connect,
    /// no auto-subscribe, `+00:00` socket times, one-time prekeys never popped); commit lag and
    /// ties come and go as faults instead of being on all the time.
    static let quirks: DevServerQuirks = {
        var quirks = DevServerQuirks.reference
        quirks.publishBeforeCommit = false
        quirks.tiedTimestamps = false
        return quirks
    }()

    let harness: MessagingHarness
    let plan: SoakPlan
    /// By device index (``SoakPlan/devices``).
    let accounts: [Account]
    let monitors: [AccountMonitor]
    /// alice, bob, carol.
    let userIDs: [String]
    let dmID: ChannelID
    let groupID: ChannelID
    /// Every fault injected, in order.
    let faultLog = Watched<[SoakFault]>([])
    /// Messages queued so far, by all devices.
    let progress = Watched(0)

    /// Registers the cast, opens the channels, and connects every device.
    /// - Throws: server and store errors; ``SoakError`` when a device does not connect.
    static func start(_ harness: MessagingHarness, plan: SoakPlan) async throws -> SoakRun {
        let alice1 = try await harness.register("alice")
        let alice2 = try await harness.login("alice", deviceName: "alice-2")
        let bob1 = try await harness.register("bob")
        let bob2 = try await harness.login("bob", deviceName: "bob-2")
        let carol = try await harness.register("carol")
        let accounts = [alice1, alice2, bob1, bob2, carol]
        try await harness.trust(accounts)
        let dm = try await alice1.openDirectMessage(with: bob1.userID)
        let group = try await alice1.createGroup(name: "soak", members: [bob1.userID, carol.userID])
        try await harness.accept(dm, on: [alice2, bob1, bob2], between: (alice1.userID, bob1.userID))
        try await harness.accept(group, on: [alice2, bob1, bob2, carol])
        for account in accounts { try await account.sync() }
        let monitors = accounts.map { AccountMonitor($0, channelIDs: [dm.id, group.id]) }
        let run = SoakRun(harness: harness, plan: plan, accounts: accounts, monitors: monitors,
                          userIDs: [alice1.userID.rawValue, bob1.userID.rawValue, carol.userID.rawValue], dmID: dm.id, groupID: group.id)
        await harness.server.faults.seedRandomFaults(plan.seed)
        for account in accounts {
            await account.connect(using: WebSocketRealtimeConnector(webSocketURL: harness.server.webSocketURL), policy: policy)
        }
        try await run.waitForAll(.connected, while: "connecting")
        return run
    }

    /// The channel id of `target`.
    func channelID(_ target: SoakPlan.Target) -> ChannelID { target == .dm ? dmID : groupID }

    /// How many readable messages each device must end with, per channel.
    func expectedCounts(device: Int) -> [ChannelID: Int] {
        let dm = device == SoakPlan.groupOnlyDevice ? 0 : plan.texts(to: .dm).count
        return [dmID: dm, groupID: plan.texts(to: .group).count]
    }

    /// Phase 0 or 2: every device sends its share at once while faults come every few messages.
    func socketPhase(_ phase: Int, faults: SoakFaultSequence) async throws -> SoakFaultSequence {
        let injector = injectFaults(during: plan.progressRange(ofPhase: phase), sequence: faults)
        try await send(phase: phase)
        return await injector.value
    }

    /// Phase 1: handshakes refused and every socket dropped, so every device falls back to
    /// polling; the phase's messages are sent (and commit delays and ties still come and go);
    /// then the socket is allowed back and every device reconnects.
    func pollingPhase(faults: SoakFaultSequence) async throws -> SoakFaultSequence {
        await harness.server.faults.refuseUpgrades(status: 403)
        // A handshake already past the refusal check when it was switched on opens a socket
        // the drop can miss: drop again until every device polls.
        for _ in 0..<10 {
            await harness.server.faults.dropOpenSockets()
            if await allReach(.polling, limit: .seconds(3)) { break }
        }
        try await waitForAll(.polling, while: "falling back to polling")
        let injector = injectFaults(during: plan.progressRange(ofPhase: 1), sequence: faults)
        try await send(phase: 1)
        let sequence = await injector.value
        await harness.server.faults.refuseUpgrades(status: nil)
        try await waitForAll(.connected, while: "reconnecting after polling")
        return sequence
    }

    /// Waits until every device's outbox is empty and nothing failed.
    /// - Throws: ``SoakError`` when an entry failed.
    func drainOutboxes() async throws {
        for (device, account) in accounts.enumerated() {
            await account.waitForOutbox()
            let failed = try await account.outboxEntries(states: [.failed])
            if !failed.isEmpty { throw SoakError("\(SoakPlan.devices[device]): \(failed.count) outbox entries failed") }
        }
    }

    /// Disconnects every device and stops watching.
    func stop() async {
        for monitor in monitors { monitor.stop() }
        for account in accounts { await account.shutdown() }
    }

    private func send(phase: Int) async throws {
        try await withThrowingTaskGroup(of: Void.self) { group in
            for (device, account) in accounts.enumerated() {
                let messages = plan.messages(of: device, inPhase: phase).map { ($0.text, channelID($0.target)) }
                let paceSeed = plan.seed &+ UInt64(device &* 131 &+ phase)
                let progress = progress
                group.addTask {
                    var pace = SeededRandom(seed: paceSeed)
                    for (text, channelID) in messages {
                        _ = try await account.send(text: text, to: channelID)
                        progress.update { $0 += 1 }
                        // Now and then wait for the posts, so devices interleave unevenly.
                        if Int.random(in: 0..<4, using: &pace) == 0 { await account.waitForOutbox() }
                    }
                }
            }
            try await group.waitForAll()
        }
    }

    private func injectFaults(during range: Range<Int>, sequence: SoakFaultSequence) -> Task<SoakFaultSequence, Never> {
        let (faults, userIDs, progress, log) = (harness.server.faults, userIDs, progress, faultLog)
        return Task {
            var sequence = sequence
            var next = range.lowerBound + sequence.nextStride()
            while next < range.upperBound {
                let threshold = next
                guard await progress.wait(limit: .seconds(120), until: { $0 >= threshold }) else { break }
                let fault = sequence.nextFault(users: userIDs.count)
                await fault.apply(to: faults, userIDs: userIDs)
                log.update { $0.append(fault) }
                next += sequence.nextStride()
            }
            return sequence
        }
    }

    private func allReach(_ state: ConnectionState, limit: Duration) async -> Bool {
        for monitor in monitors where !(await monitor.waitForConnection(state, limit: limit)) { return false }
        return true
    }

    private func waitForAll(_ state: ConnectionState, while doing: String) async throws {
        for (device, monitor) in monitors.enumerated() where !(await monitor.waitForConnection(state)) {
            throw SoakError("\(SoakPlan.devices[device]) did not reach \(state) while \(doing) (last: \(monitor.connection.value))")
        }
    }
}

/// A soak step that did not happen.
struct SoakError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
