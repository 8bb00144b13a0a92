import E2EEDevServer
import E2EEMessaging
import E2EETestSupport
import E2EETransport
import Foundation
import Testing

extension IntegrationTests {
    /// Issue 43 item 4: an observed timeline shows our own message's tick move, sent → delivered.
    @Suite("Delivery on an observed timeline")
    struct DeliveryTickTests {
        @Test("timelineUpdates shows our message inserted, then updated when its echo makes it delivered")
        func observedTimelineShowsDelivered() async throws {
            try await MessagingHarness.with { harness in
                let alice = try await harness.register("alice")
                let bob = try await harness.register("bob")
                try await harness.trust([alice, bob])
                let dm = try await harness.acceptedDM(alice, bob)
                let monitor = AccountMonitor(alice, channelIDs: [dm.id])
                await alice.connect(using: WebSocketRealtimeConnector(webSocketURL: harness.server.webSocketURL))
                #expect(await monitor.waitForConnection(.connected))

                let seen = Watched<[String]>([])
                let observer = Task {
                    var updates = alice.timelineUpdates(channelID: dm.id).makeAsyncIterator()
                    while let update = try? await updates.next() {
                        guard case .changes(let diffs) = update else { continue }
                        for diff in diffs {
                            switch diff {
                            case .inserted(let item): seen.update { $0.append("inserted \(item.delivery?.rawValue ?? "-")") }
                            case .updated(let item): seen.update { $0.append("updated \(item.delivery?.rawValue ?? "-")") }
                            case .removed: break
                            }
                        }
                    }
                }
                try await alice.send(text: "tick", to: dm.id)
                // The row may already read delivered when its insertion is read back; the change
                // that delivered it comes all the same, as the row's update.
                #expect(await seen.wait { $0.contains("updated delivered") }, "no row update for delivered: \(seen.value)")
                #expect(seen.value.first?.hasPrefix("inserted") == true)
                observer.cancel()
                monitor.stop()
                await alice.shutdown()
                await bob.shutdown()
            }
        }
    }
}
