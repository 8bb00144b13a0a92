import Foundation
import Hummingbird
import HummingbirdWebSocket
import Logging
import NIOCore
import ServiceLifecycle

/// Why a dev server did not start.
public enum DevServerError: Error, Sendable, Equatable {
    /// The server stopped before it bound its port (the address is taken or invalid).
    case failedToBind(host: String, port: Int)
}

/// The development server: an in-process stand-in for the reference chat backend of docs/spec/server-api.md,
/// quirks included, for integration tests and for a person (`swift run e2ee-devserver`).
public enum DevServer {
    /// Starts a server and returns once it is listening.
    /// - Throws: ``DevServerError/failedToBind(host:port:)`` when the port cannot be bound, or
    ///   GRDB's `DatabaseError` when the database cannot be opened.
    public static func start(configuration: DevServerConfiguration) async throws -> RunningDevServer {
        var logger = Logger(label: "e2ee-devserver")
        logger.logLevel = configuration.logRequests ? .info : .warning
        let hub = EventHub(autoSubscribeLaterChannels: !configuration.quirks.noAutoSubscribeToLaterChannels)
        let database = try DevDatabase.open(path: configuration.databasePath)
        let writer = FaultPostWriter(database: database, hub: hub, clock: configuration.clock,
                                     socketSuffix: configuration.quirks.socketTimestampsWithOffset ? .offset : .zulu)
        let state = ServerState(
            database: database,
            configuration: configuration,
            faults: FaultInjector(hub: hub, writer: writer),
            hub: hub,
            rateLimiter: RateLimiter(limit: configuration.rateLimit),
            connectionMarks: ConnectionMarks(),
            pendingSockets: PendingSockets(),
            logger: logger
        )
        let router = Router(context: DevRequestContext.self)
        router.add(middleware: DevMiddleware(state: state))
        AuthRoutes(state: state).register(on: router)
        UserRoutes(state: state).register(on: router)
        DeviceRoutes(state: state).register(on: router)
        KeyRoutes(state: state).register(on: router)
        ChannelRoutes(state: state).register(on: router)
        DevAdminRoutes(state: state).register(on: router)
        HealthRoutes().register(on: router)
        let webSocketRouter = Router(context: DevRequestContext.self)
        WebSocketRoutes(state: state).register(webSocketRouter: webSocketRouter, httpRouter: router)

        let (portStream, portSink) = AsyncStream.makeStream(of: Int.self)
        let app = Application(
            router: router,
            server: RefusalAwareUpgradeChannel.builder(
                webSocketRouter: webSocketRouter,
                configuration: .init(maxFrameSize: 1 << 20, autoPing: .disabled)
            ),
            configuration: .init(address: .hostname(configuration.host, port: configuration.port), serverName: "e2ee-devserver"),
            onServerRunning: { channel in
                portSink.yield(channel.localAddress?.port ?? 0)
                portSink.finish()
            },
            logger: logger
        )
        let serviceGroup = ServiceGroup(services: [app], gracefulShutdownSignals: [], cancellationSignals: [], logger: logger)
        let task = Task {
            defer { portSink.finish() }
            try await serviceGroup.run()
        }
        var iterator = portStream.makeAsyncIterator()
        guard let port = await iterator.next(), port > 0 else {
            task.cancel()
            throw DevServerError.failedToBind(host: configuration.host, port: configuration.port)
        }
        return RunningDevServer(host: configuration.host, port: port, faults: state.faults, clock: configuration.clock,
                                state: state, serviceGroup: serviceGroup, task: task)
    }
}

/// A started dev server: its address, its fault injector and clock, and a way to stop it.
public final class RunningDevServer: Sendable {
    /// The bound host.
    public let host: String
    /// The bound port (the real one when the configuration asked for port 0).
    public let port: Int
    /// Faults to switch on and off while the server runs.
    public let faults: FaultInjector
    /// The server's clock (advance a manual one to expire tickets and tokens).
    public let clock: DevServerClock
    let state: ServerState
    private let serviceGroup: ServiceGroup
    private let task: Task<Void, any Error>

    init(host: String, port: Int, faults: FaultInjector, clock: DevServerClock, state: ServerState,
         serviceGroup: ServiceGroup, task: Task<Void, any Error>) {
        self.host = host
        self.port = port
        self.faults = faults
        self.clock = clock
        self.state = state
        self.serviceGroup = serviceGroup
        self.task = task
    }

    /// `http://host:port`.
    public var baseURL: String { "http://\(host):\(port)" }

    /// `ws://host:port/ws`.
    public var webSocketURL: String { "ws://\(host):\(port)/ws" }

    /// Expires every access token issued so far ("expire tokens early").
    public func expireAccessTokens() async {
        await faults.expireAccessTokens(issuedAtOrBefore: clock.nowMicros)
    }

    /// Marks a user banned or not: login and bearer calls answer 403.
    /// - Throws: GRDB's `DatabaseError`.
    public func setBanned(username: String, _ banned: Bool) async throws {
        try await state.database.write { db in
            try db.execute(sql: "UPDATE users SET banned = ? WHERE username = ?", arguments: [banned, username])
        }
    }

    /// Adds `userID` to `count` new group channels created by `creatorID`, written straight to
    /// the database: what any account holder can do with `count` requests (a flood of channels),
    /// without spending the rate limit of the test's own loopback address. Returns their ids.
    /// - Throws: GRDB's `DatabaseError`.
    public func addToNewChannels(userID: String, createdBy creatorID: String, count: Int) async throws -> [String] {
        try await state.database.write { [state] db in
            try (0..<max(count, 0)).map { index in
                let row = try state.createChannel(db, name: "flood \(index)", isDM: false, encryptionType: "sender_keys", creatorID: creatorID)
                let id: String = row["id"]
                try state.addMember(db, channelID: id, userID: userID, role: "member")
                return id
            }
        }
    }

    /// The channels a user's sockets are subscribed to right now (subscriptions are per user).
    public func subscriptions(ofUser userID: String) async -> Set<String> {
        await state.hub.subscriptions(of: userID)
    }

    /// The number of open sockets of a user.
    public func socketCount(ofUser userID: String) async -> Int {
        await state.hub.socketCount(of: userID)
    }

    /// Stops the server and waits for it to finish: closes every WebSocket (which would hold a
    /// graceful shutdown forever), shuts down gracefully, cancels the server if it is still
    /// running after `grace`, and stops waiting `grace` after that (a connection that ignores
    /// cancellation is left behind with a warning rather than hanging the caller).
    public func shutdown(grace: Duration = .seconds(5)) async {
        await state.hub.closeAll()
        await serviceGroup.triggerGracefulShutdown()
        let task = self.task
        let finished = OnceFlag()
        let watchdog = Task {
            try await grace.sleep()
            task.cancel()
            try await grace.sleep()
            if finished.set() { state.logger.warning("dev server still running \(grace) after cancellation; no longer waiting") }
        }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            finished.onSet { continuation.resume() }
            Task {
                _ = await task.result
                _ = finished.set()
            }
        }
        watchdog.cancel()
    }
}
