import E2EEDevServer
import E2EEMessaging
import E2EETransport
import Testing

extension IntegrationTests {
    /// docs/spec/sync.md's guarantees 1–7, each through whole accounts (the real HTTP client, the real
    /// realtime connection where a socket matters) and the development server; the tests are in
    /// the files of this folder, one guarantee each.
    @Suite("Guarantees")
    struct GuaranteeTests {
        /// The scaled-down timings, but a device never gives up on the socket for polling:
        /// these tests are about the reconnect path.
        static let policy: ConnectionPolicy = {
            var policy = ConnectionPolicy.scaledDown
            policy.failuresBeforePolling = 1_000
            policy.pollingStart = nil
            return policy
        }()

        /// Connects `account` through the real WebSocket connector (with `policy`, by default
        /// these tests' own), watching `channelIDs`, and waits until it is connected.
        static func connect(_ account: Account, _ harness: MessagingHarness, watching channelIDs: [ChannelID],
                            policy: ConnectionPolicy = policy) async throws -> AccountMonitor {
            let monitor = AccountMonitor(account, channelIDs: channelIDs)
            await account.connect(using: WebSocketRealtimeConnector(webSocketURL: harness.server.webSocketURL), policy: policy)
            try #require(await monitor.waitForConnection(.connected))
            return monitor
        }

        /// Sends `texts` from `account` to `channelID` one by one, each posted before the next.
        static func send(_ texts: [String], from account: Account, to channelID: ChannelID) async throws {
            for text in texts {
                _ = try await account.send(text: text, to: channelID)
                await account.waitForOutbox()
            }
        }
    }
}
