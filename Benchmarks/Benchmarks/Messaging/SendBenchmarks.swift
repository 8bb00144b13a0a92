import Benchmark
import BenchmarkSupport
import E2EEMessaging

/// A DM whose envelope goes to ten devices: the sender's 4 other devices and the peer's 6.
func registerDirectMessageBenchmark() {
    let fixture = Carried<(MessagingFixture, Account, ChannelID)?>(nil)
    Benchmark("DM send to 10 devices", closure: { benchmark async throws in
        guard let (_, sender, channel) = fixture.value else { return }
        benchmark.startMeasurement()
        try await sender.send(text: "benchmark message of about sixty bytes of text, say hello", to: ChannelID(channel.rawValue))
        await sender.waitForOutbox()
        benchmark.stopMeasurement()
    }, setup: {
        let server = try await MessagingFixture.start()
        let alice = try await server.user(devices: 5)
        let bob = try await server.user(devices: 6)
        let dm = try await alice[0].openDirectMessage(with: bob[0].userID)
        try await alice[0].send(text: "warm-up", to: dm.id)
        await alice[0].waitForOutbox()
        fixture.value = (server, alice[0], dm.id)
    }, teardown: {
        await fixture.value?.0.shutdown()
        fixture.value = nil
    })
}

/// Group sends to 50 other devices (25 users with 2 devices each).
func registerGroupBenchmarks() {
    let groupsWanted = 40
    let fixture = Carried<(MessagingFixture, Account, [ChannelID])?>(nil)
    let next = Carried(0)
    Benchmark("Group send with SKD to 50 devices", configuration: .init(maxIterations: groupsWanted - 1), closure: { benchmark async throws in
        guard let (_, sender, groups) = fixture.value, next.value < groups.count else { return }
        let group = groups[next.value]
        next.value += 1
        benchmark.startMeasurement()
        try await sender.send(text: "first message of the group", to: ChannelID(group.rawValue))
        await sender.waitForOutbox()
        benchmark.stopMeasurement()
    }, setup: {
        let server = try await MessagingFixture.start()
        let sender = try await server.user(devices: 1)[0]
        var members: [UserID] = []
        for _ in 0..<25 { members.append(try await server.user(devices: 2)[0].userID) }
        var groups: [ChannelID] = []
        for index in 0..<groupsWanted { groups.append(try await sender.createGroup(name: "g\(index)", members: members).id) }
        // Sessions with all 50 devices, so samples measure distribution, not X3DH.
        try await sender.send(text: "warm-up", to: groups[groupsWanted - 1])
        await sender.waitForOutbox()
        fixture.value = (server, sender, groups)
        next.value = 0
    }, teardown: {
        await fixture.value?.0.shutdown()
        fixture.value = nil
    })

    let steady = Carried<(MessagingFixture, Account, ChannelID)?>(nil)
    Benchmark("Group send, key already distributed", closure: { benchmark async throws in
        guard let (_, sender, group) = steady.value else { return }
        benchmark.startMeasurement()
        try await sender.send(text: "benchmark message of about sixty bytes of text, say hello", to: ChannelID(group.rawValue))
        await sender.waitForOutbox()
        benchmark.stopMeasurement()
    }, setup: {
        let server = try await MessagingFixture.start()
        let sender = try await server.user(devices: 1)[0]
        var members: [UserID] = []
        for _ in 0..<25 { members.append(try await server.user(devices: 2)[0].userID) }
        let group = try await sender.createGroup(name: "steady", members: members)
        try await sender.send(text: "warm-up", to: group.id)
        await sender.waitForOutbox()
        steady.value = (server, sender, group.id)
    }, teardown: {
        await steady.value?.0.shutdown()
        steady.value = nil
    })
}
