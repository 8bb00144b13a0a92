import E2EEDevServer
import E2EEMessaging
import Testing

extension IntegrationTests.GuaranteeTests {
    @Test("6. race-free catch-up: a message sent during the catch-up, on its page or only on the buffered socket, is shown once")
    func messageSentDuringCatchUp() async throws {
        try await MessagingHarness.with { harness in
            let alice = try await harness.register("alice")
            let box = UnreliableBox()
            let bob = try await harness.register("bob") { box.wrap($0) }
            let unreliable = try #require(box.server)
            let dm = try await harness.acceptedDM(alice, bob)
            try await Self.send(["before"], from: alice, to: dm.id)
            try await bob.sync()

            // Sent while the connect's catch-up reads its first page: before the read, so it is
            // on the page and on the socket (which buffers until the catch-up is done).
            unreliable.onNextHistoryRead(runsFirst: true) {
                try await Self.send(["during the read"], from: alice, to: dm.id)
            }
            let monitor = try await Self.connect(bob, harness, watching: [dm.id])
            #expect(await monitor.waitForReadable([dm.id: 2], limit: .seconds(30)))

            // After the read answered: only the socket has it.
            unreliable.onNextHistoryRead(runsFirst: false) {
                try await Self.send(["after the read"], from: alice, to: dm.id)
            }
            await bob.networkChanged()  // a new socket, and its catch-up
            #expect(await monitor.waitForReadable([dm.id: 3], limit: .seconds(30)))
            try await Self.send(["later"], from: alice, to: dm.id)
            #expect(await monitor.waitForReadable([dm.id: 4], limit: .seconds(30)))
            #expect(try await bob.timeline(channelID: dm.id).map(\.text) == ["before", "during the read", "after the read", "later"])
            monitor.stop()
            await bob.shutdown()
        }
    }
}
