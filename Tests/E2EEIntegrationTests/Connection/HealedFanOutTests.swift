import E2EEDevServer
import E2EEMessaging
import E2EETestSupport
import E2EETransport
import Testing

extension IntegrationTests {
    /// The server's fan-out dies and another socket heals it (docs/spec/server-api.md §12: any new
    /// socket resubscribes it) before this one notices: the socket hears again, with a hole it
    /// cannot see. What was posted in the hole must still arrive (docs/spec/sync.md §11.6, guarantee 6):
    /// nothing a socket delivers moves the verified mark, and the channels it delivers into are
    /// re-read over REST within ``ConnectionPolicy/socketConfirmationDelay``.
    @Suite("Healed fan-out")
    struct HealedFanOutTests {
        /// Scaled-down timings with every deaf-socket rule off: the listener never notices the
        /// hole by itself, which is what happens when the fan-out heals before its check.
        static func policy(confirmation: Duration?) -> ConnectionPolicy {
            var policy = ConnectionPolicy.scaledDown
            policy.echoCheckInterval = nil
            policy.deafCheckInterval = nil
            policy.echoTimeout = .seconds(60)
            policy.socketConfirmationDelay = confirmation
            return policy
        }

        /// alice and bob in an accepted DM, bob listening on a socket with `policy` (his verified
        /// mark kept `overlap` behind what he has read), and carol, whose socket will heal the fan-out.
        private func cast(_ harness: MessagingHarness, policy: ConnectionPolicy, overlap: Duration)
            async throws -> (alice: Account, bob: Account, carol: Account, dm: ChatChannel, monitor: AccountMonitor) {
            let alice = try await harness.register("alice")
            var configuration = MessagingHarness.testConfiguration
            configuration.catchUpOverlap = overlap
            let bob = try await harness.register("bob", configuration: configuration)
            let carol = try await harness.register("carol")
            let dm = try await harness.acceptedDM(alice, bob)
            try await bob.sync()
            let monitor = try await GuaranteeTests.connect(bob, harness, watching: [dm.id], policy: policy)
            try await GuaranteeTests.send(["before"], from: alice, to: dm.id)
            #expect(await monitor.waitForReadable([dm.id: 1], limit: .seconds(30)))
            try await Task.sleep(for: .seconds(1))  // past the connect's follow-up catch-up
            return (alice, bob, carol, dm, monitor)
        }

        /// Kills the fan-out, posts `text` from `alice` into the hole, then heals the fan-out by
        /// connecting `carol`'s socket.
        private func postIntoAHealedHole(_ text: String, from alice: Account, to dm: ChatChannel, carol: Account,
                                         _ harness: MessagingHarness) async throws -> AccountMonitor {
            await harness.server.faults.killPubSub()
            try await GuaranteeTests.send([text], from: alice, to: dm.id)
            let healer = try await GuaranteeTests.connect(carol, harness, watching: [])
            #expect(await !harness.server.faults.pubSubDead, "carol's socket healed the fan-out")
            return healer
        }

        @Test("the fan-out dies and another socket heals it: what was posted in the hole arrives by the socket's confirmation read, without a reconnect")
        func confirmationReadFillsTheHole() async throws {
            try await MessagingHarness.with { harness in
                let (alice, bob, carol, dm, monitor) = try await cast(harness, policy: Self.policy(confirmation: .seconds(1)),
                                                                      overlap: .seconds(10))
                let healer = try await postIntoAHealedHole("lost", from: alice, to: dm, carol: carol, harness)
                try await GuaranteeTests.send(["after"], from: alice, to: dm.id)  // heard on the healed socket
                // Bound: the confirmation 1 s after "after" was delivered, and its read.
                #expect(await monitor.waitForReadable([dm.id: 3], limit: .seconds(10)))
                let items = try await bob.timeline(channelID: dm.id, limit: 100)
                #expect(items.map(\.text) == ["before", "lost", "after"])
                #expect(await monitor.waitForConnection(.connected), "no reconnect was needed")
                healer.stop()
                monitor.stop()
                await carol.shutdown()
                await bob.shutdown()
            }
        }

        @Test("the fan-out dies and another socket heals it: what the healed socket delivers does not move the verified mark past the hole, so the next reconnect reads it")
        func socketDeliveriesDoNotMoveTheMarkPastAHole() async throws {
            try await MessagingHarness.with { harness in
                // No confirmation reads, a short overlap: only the mark decides what the reconnect reads.
                let (alice, bob, carol, dm, monitor) = try await cast(harness, policy: Self.policy(confirmation: nil),
                                                                      overlap: .milliseconds(50))
                let healer = try await postIntoAHealedHole("lost", from: alice, to: dm, carol: carol, harness)
                // More than one catch-up page (50) after the hole, all heard on the socket.
                let after = (0..<55).map { "after \($0)" }
                try await GuaranteeTests.send(after, from: alice, to: dm.id)
                #expect(await monitor.waitForReadable([dm.id: 56], limit: .seconds(30)))
                await harness.server.faults.dropOpenSockets(ofUser: bob.userID.rawValue)
                // Bound: a reconnect and its catch-up.
                #expect(await monitor.waitForReadable([dm.id: 57], limit: .seconds(10)))
                let items = try await bob.timeline(channelID: dm.id, limit: 100)
                #expect(items.map(\.text) == ["before", "lost"] + after)
                healer.stop()
                monitor.stop()
                await carol.shutdown()
                await bob.shutdown()
            }
        }
    }
}
