import E2EEDevServer
import E2EEMessaging
import E2EETransport
import Foundation
import Testing

/// A dev server on loopback and real clients of it (HTTPChatServer + AuthSession, the
/// WebSocket connector) for connection supervisor tests. Always shuts the server down.
struct ConnectionHarness: Sendable {
    let server: RunningDevServer

    /// Short durations so a run of failures takes well under a second; the behaviour is the
    /// spec's, only faster.
    static let fastPolicy = ConnectionPolicy(
        backoffBase: .milliseconds(40),
        backoffCap: .milliseconds(200),
        pollInterval: .milliseconds(150),
        stableConnection: .seconds(30),
        networkSettle: .milliseconds(100),
        followUpCatchUp: .milliseconds(400),
        attemptTimeout: .seconds(15),
        closeDrainLimit: .seconds(2)
    )

    /// The reference server's socket behaviour that matters here (no auto-subscribe to channels
    /// created after connect), without the quirks that only slow the tests down.
    static let quirks: DevServerQuirks = {
        var quirks = DevServerQuirks.none
        quirks.noAutoSubscribeToLaterChannels = true
        return quirks
    }()

    /// Runs `body` against a fresh server and always shuts it down.
    static func with<T: Sendable>(_ body: (ConnectionHarness) async throws -> T) async throws -> T {
        let server = try await DevServer.start(configuration: .testing(quirks: quirks))
        do {
            let result = try await body(ConnectionHarness(server: server))
            await server.shutdown()
            return result
        } catch {
            await server.shutdown()
            throw error
        }
    }

    /// A client registered as `username` (memory-only session).
    func registered(_ username: String) async throws -> (HTTPChatServer, TokenResponse) {
        let client = HTTPChatServer(baseURL: server.baseURL, session: AuthSession(keyStore: nil, serverURL: server.baseURL))
        let tokens = try await client.register(username: username, password: "password123", deviceName: "phone")
        return (client, tokens)
    }

    /// The real WebSocket connector for this server, recording the tickets it is given.
    func connector() -> TicketRecordingConnector {
        TicketRecordingConnector(WebSocketRealtimeConnector(webSocketURL: server.webSocketURL))
    }

    /// A supervisor of `client`'s connection with the fast policy, its delegate set.
    func supervisor(_ client: HTTPChatServer, connector: TicketRecordingConnector, delegate: ConnectionProbe) async -> ConnectionSupervisor {
        let supervisor = ConnectionSupervisor(api: client, connector: connector, policy: Self.fastPolicy)
        await supervisor.setDelegate(delegate)
        return supervisor
    }

    /// Waits until the server has subscribed `userID` to `channelID` (the subscribe frame is
    /// applied asynchronously and the server sends no acknowledgement).
    func waitForSubscription(userID: String, channelID: String) async -> Bool {
        // The server offers no signal to await.
        await eventually(within: .seconds(20)) { await server.subscriptions(ofUser: userID).contains(channelID) }
    }
}

/// The real connector, with the tickets it was handed recorded (to check that each attempt
/// used a fresh one). It changes nothing about the connection.
final class TicketRecordingConnector: RealtimeConnecting, @unchecked Sendable {
    private let inner: WebSocketRealtimeConnector
    private let lock = NSLock()
    private var recorded: [String] = []

    init(_ inner: WebSocketRealtimeConnector) { self.inner = inner }

    /// Every ticket presented, in order.
    var tickets: [String] { lock.withLock { recorded } }

    func connect(ticket: String) async throws -> any RealtimeConnection {
        lock.withLock { recorded.append(ticket) }
        return try await inner.connect(ticket: ticket)
    }

    /// Connects with the real connector, bypassing the record (to try a used ticket again).
    func connectUnrecorded(ticket: String) async throws -> any RealtimeConnection {
        try await inner.connect(ticket: ticket)
    }
}
