import E2EEDevServer
import E2EEMessaging
import E2EETestSupport
import E2EETransport
import Foundation
import Testing

extension IntegrationTests {
    /// Issue 43 item 6: requests observable like pending recipient updates — read from the
    /// store, recorded as shown, so accepting takes what the stream showed.
    @Suite("Request updates")
    struct RequestUpdatesTests {
        @Test("channelRequestUpdates shows alice's DM with her as candidate when her message arrives, and nothing once accepted")
        func requestsAreObservable() async throws {
            try await MessagingHarness.with { harness in
                let alice = try await harness.register("alice")
                let bob = try await harness.register("bob")
                try await harness.trust([alice, bob])
                let seen = Watched<[[ChannelRequest]]>([])
                let observer = Task {
                    for await list in bob.channelRequestUpdates() { seen.update { $0.append(list) } }
                }
                #expect(await seen.wait { $0.last?.isEmpty == true }, "no first list")
                let monitor = AccountMonitor(bob, channelIDs: [])
                await bob.connect(using: WebSocketRealtimeConnector(webSocketURL: harness.server.webSocketURL))
                #expect(await monitor.waitForConnection(.connected))

                let dm = try await alice.openDirectMessage(with: bob.userID)
                try await alice.send(text: "hello bob", to: dm.id)
                await alice.waitForOutbox()
                #expect(await seen.wait { $0.last?.first { $0.channel.id == dm.id }?.candidate == alice.userID },
                        "the request never showed alice: \(seen.value)")

                #expect(try await bob.acceptChannel(dm.id) == [alice.userID])
                #expect(await seen.wait { $0.last?.isEmpty == true }, "the accepted request is still listed: \(seen.value)")
                #expect(await eventually(within: .seconds(10)) { (try? await TimelineChecks.readableTexts(bob, dm.id)) == ["hello bob"] })
                observer.cancel()
                monitor.stop()
                await alice.shutdown()
                await bob.shutdown()
            }
        }
    }
}
