import E2EEDevServer
import Foundation
import E2EEMessaging
import E2EETestSupport
import E2EETransport
import Testing

extension IntegrationTests {
    /// Issue 17 item 1 and issue 43 item 12 through whole accounts: the dev server's "pub/sub
    /// dies" fault (docs/spec/server-api.md §12) leaves the socket open, answering pings, and
    /// deaf. The account notices — by its echo check on a quiet socket, by its own echo missing
    /// after the 201, or (where the echo check is off) by the light REST check — reconnects
    /// (which heals the server's fan-out) and catches up: every message arrives, within
    /// `echoCheckInterval + echoTimeout` plus a reconnect and a catch-up (docs/spec/sync.md
    /// §11.6; with the defaults 45 s + 10 s), and 10 s after a send of ours.
    @Suite("Deaf socket")
    struct DeafSocketTests {
        /// The scaled-down timings with the deaf-socket rules scaled down too (the echo check off
        /// unless `echoCheck` is given).
        static func policy(check: Duration?, echoCheck: Duration? = nil, echo: Duration = .seconds(60),
                           grace: Duration = .milliseconds(300)) -> ConnectionPolicy {
            var policy = ConnectionPolicy.scaledDown
            policy.echoCheckInterval = echoCheck
            policy.deafCheckInterval = check
            policy.deafGrace = grace
            policy.echoTimeout = echo
            return policy
        }

        /// Every connection state `account` publishes from now on.
        private func recordStates(_ account: Account) -> (Watched<[ConnectionState]>, Task<Void, Never>) {
            let states = Watched<[ConnectionState]>([])
            let events = account.events()
            let task = Task {
                for await event in events {
                    if case .connection(let state) = event { states.update { $0.append(state) } }
                }
            }
            return (states, task)
        }

        private func connect(_ account: Account, _ harness: MessagingHarness, _ policy: ConnectionPolicy,
                             watching channelIDs: [ChannelID]) async throws -> AccountMonitor {
            try await GuaranteeTests.connect(account, harness, watching: channelIDs, policy: policy)
        }

        private func send(_ texts: [String], from account: Account, to channelID: ChannelID) async throws {
            try await GuaranteeTests.send(texts, from: account, to: channelID)
        }

        @Test("pub/sub dies while the listener is idle: the echo check notices, reconnects, and what another device sends arrives within the bound")
        func echoCheckHealsAnIdleDeafSocket() async throws {
            try await MessagingHarness.with { harness in
                let alice = try await harness.register("alice")
                let bob = try await harness.register("bob")
                let dm = try await harness.acceptedDM(alice, bob)
                try await bob.sync()
                // The echo check alone: no REST check, no echo of our own sends.
                let policy = Self.policy(check: nil, echoCheck: .seconds(1), echo: .milliseconds(500))
                let (states, recorder) = recordStates(bob)
                let monitor = try await connect(bob, harness, policy, watching: [dm.id])
                try await send(["before"], from: alice, to: dm.id)
                #expect(await monitor.waitForReadable([dm.id: 1], limit: .seconds(30)))
                try await Task.sleep(for: .seconds(3))  // idle: two or three checks, each answered
                #expect(!states.value.contains { if case .reconnecting = $0 { true } else { false } }, "states: \(states.value)")

                await harness.server.faults.killPubSub()
                let clock = ContinuousClock()
                let sentAt = clock.now
                try await send((0..<3).map { "deaf \($0)" }, from: alice, to: dm.id)
                // Bound: a check within 1 s of the last event, its echo missing 0.5 s later, a
                // reconnect and its catch-up; 10 s leaves room for a loaded machine.
                #expect(await monitor.waitForReadable([dm.id: 4], limit: .seconds(10)))
                let waited = clock.now - sentAt
                #expect(waited < .seconds(10), "arrived after \(waited)")
                #expect(states.value.contains { if case .reconnecting = $0 { true } else { false } }, "states: \(states.value)")
                #expect(await !harness.server.faults.pubSubDead, "the new socket healed the fan-out")
                let items = try await bob.timeline(channelID: dm.id, limit: 100)
                #expect(items.map(\.text) == ["before", "deaf 0", "deaf 1", "deaf 2"])
                monitor.stop()
                recorder.cancel()
                await bob.shutdown()
            }
        }

        @Test("an idle healthy socket: its echo checks are answered, it is never reopened, and the app sees no typing from them")
        func echoChecksLeaveAHealthySocketAlone() async throws {
            try await MessagingHarness.with { harness in
                let alice = try await harness.register("alice")
                let bob = try await harness.register("bob")
                let dm = try await harness.acceptedDM(alice, bob)
                try await bob.sync()
                let typing = Watched<[ChannelID]>([])
                let events = bob.events()
                let watcher = Task {
                    for await event in events {
                        if case .typing(_, let channelID, _) = event { typing.update { $0.append(channelID) } }
                    }
                }
                let (states, recorder) = recordStates(bob)
                let monitor = try await connect(bob, harness, Self.policy(check: nil, echoCheck: .milliseconds(300), echo: .seconds(2)), watching: [dm.id])
                #expect(await monitor.waitForConnection(.connected))
                try await Task.sleep(for: .seconds(3))  // about ten checks
                // Another device's echo check: a typing.stop for a channel this account does not have.
                await harness.server.faults.sendRawFrame(
                    #"{"type":"typing.stop","user_id":"\#(bob.userID.rawValue)","channel_id":"\#(UUID().uuidString.lowercased())"}"#,
                    toUser: bob.userID.rawValue)
                // A typing frame of the DM, handled after it: once seen, the one before was too.
                await harness.server.faults.sendRawFrame(
                    #"{"type":"typing.start","user_id":"\#(alice.userID.rawValue)","channel_id":"\#(dm.id.rawValue)"}"#,
                    toUser: bob.userID.rawValue)
                #expect(await typing.wait(limit: .seconds(10)) { !$0.isEmpty })
                #expect(typing.value == [dm.id], "only the DM's typing reaches the app")
                #expect(!states.value.contains { if case .reconnecting = $0 { true } else { false } }, "states: \(states.value)")
                watcher.cancel()
                monitor.stop()
                recorder.cancel()
                await bob.shutdown()
            }
        }

        @Test("pub/sub dies mid-listen: the periodic check notices, reconnects, and every message arrives within the bound")
        func periodicCheckHealsADeafSocket() async throws {
            try await MessagingHarness.with { harness in
                let alice = try await harness.register("alice")
                let bob = try await harness.register("bob")
                let dm = try await harness.acceptedDM(alice, bob)
                try await bob.sync()
                let policy = Self.policy(check: .seconds(1))
                let (states, recorder) = recordStates(bob)
                let monitor = try await connect(bob, harness, policy, watching: [dm.id])
                try await send(["before"], from: alice, to: dm.id)
                #expect(await monitor.waitForReadable([dm.id: 1], limit: .seconds(30)))
                try await Task.sleep(for: .seconds(1))  // past the connect's follow-up catch-up

                await harness.server.faults.killPubSub()
                let clock = ContinuousClock()
                let sentAt = clock.now
                try await send((0..<3).map { "deaf \($0)" }, from: alice, to: dm.id)
                // Bound: a check within 1 s, messages older than the 0.3 s grace, a reconnect and
                // its catch-up; 10 s leaves room for a loaded machine.
                #expect(await monitor.waitForReadable([dm.id: 4], limit: .seconds(10)))
                let waited = clock.now - sentAt
                #expect(waited < .seconds(10), "arrived after \(waited)")
                #expect(states.value.contains { if case .reconnecting = $0 { true } else { false } }, "states: \(states.value)")
                #expect(await !harness.server.faults.pubSubDead, "the new socket healed the fan-out")

                // The healed socket delivers again, at once.
                #expect(await monitor.waitForConnection(.connected))
                try await send(["after"], from: alice, to: dm.id)
                #expect(await monitor.waitForReadable([dm.id: 5], limit: .seconds(10)))
                let items = try await bob.timeline(channelID: dm.id, limit: 100)
                #expect(items.map(\.text) == ["before", "deaf 0", "deaf 1", "deaf 2", "after"])
                monitor.stop()
                recorder.cancel()
                await bob.shutdown()
            }
        }

        @Test("pub/sub dies: our own message's echo missing after its 201 reconnects, and what others sent arrives")
        func missingEchoHealsADeafSocket() async throws {
            try await MessagingHarness.with { harness in
                let alice = try await harness.register("alice")
                let bob = try await harness.register("bob")
                let dm = try await harness.acceptedDM(alice, bob)
                try await bob.sync()
                let policy = Self.policy(check: nil, echo: .milliseconds(500))  // the echo rule alone
                let (states, recorder) = recordStates(bob)
                let monitor = try await connect(bob, harness, policy, watching: [dm.id])
                try await send(["hello"], from: bob, to: dm.id)  // its echo comes: no reconnect
                try await Task.sleep(for: .seconds(1))
                #expect(!states.value.contains { if case .reconnecting = $0 { true } else { false } }, "states: \(states.value)")

                await harness.server.faults.killPubSub()
                try await send(["from alice while deaf"], from: alice, to: dm.id)
                try await send(["from bob while deaf"], from: bob, to: dm.id)
                #expect(await monitor.waitForReadable([dm.id: 3], limit: .seconds(10)))
                #expect(states.value.contains { if case .reconnecting = $0 { true } else { false } }, "states: \(states.value)")
                let items = try await bob.timeline(channelID: dm.id, limit: 100)
                #expect(Set(items.compactMap(\.text)) == ["hello", "from alice while deaf", "from bob while deaf"])
                monitor.stop()
                recorder.cancel()
                await bob.shutdown()
            }
        }

        @Test("without a fault, the periodic check never reconnects a healthy socket")
        func healthySocketIsLeftAlone() async throws {
            try await MessagingHarness.with { harness in
                let alice = try await harness.register("alice")
                let bob = try await harness.register("bob")
                let dm = try await harness.acceptedDM(alice, bob)
                try await bob.sync()
                let (states, recorder) = recordStates(bob)
                let monitor = try await connect(bob, harness, Self.policy(check: .milliseconds(300), echo: .seconds(2), grace: .seconds(1)), watching: [dm.id])
                for index in 0..<5 {
                    try await send(["a\(index)"], from: alice, to: dm.id)
                    try await send(["b\(index)"], from: bob, to: dm.id)
                    try await Task.sleep(for: .milliseconds(300))
                }
                #expect(await monitor.waitForReadable([dm.id: 10], limit: .seconds(10)))
                try await Task.sleep(for: .seconds(2))
                #expect(!states.value.contains { if case .reconnecting = $0 { true } else { false } }, "states: \(states.value)")
                monitor.stop()
                recorder.cancel()
                await bob.shutdown()
            }
        }
    }
}
