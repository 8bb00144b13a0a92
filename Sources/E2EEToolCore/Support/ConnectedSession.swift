import E2EEMessaging
import E2EETransport

/// What a long-running command does with each account event; `false` ends the command.
protocol AccountEventHandling: Sendable {
    /// Handles one event, in order; returns whether to go on.
    /// - Throws: whatever ends the command with an error (output or store failures).
    func handle(_ event: AccountEvent) async throws -> Bool
}

/// Keeps an account connected while a command runs: the account's connection supervisor opens
/// the socket (a new ticket per attempt), reconnects with backoff, falls back to polling and
/// catches up on every connect; this only hands the account's events to a handler and waits
/// for the first way to end.
struct ConnectedSession {
    /// How the session ended.
    enum Ending: Sendable, Equatable {
        /// The handler had what it wanted.
        case done
        /// `--timeout` passed.
        case timedOut
        /// SIGINT or SIGTERM.
        case signal(Int32)
        /// The server session ended (refresh refused) or no one is logged in.
        case sessionEnded(reason: String)
        /// The account's event stream finished (the account was shut down).
        case eventsEnded
    }

    let account: Account
    let serverURL: String
    let console: Console
    /// Connection states on standard error.
    let verbose: Bool
    /// Seconds before the session ends by itself.
    let timeout: Double?

    /// Connects, hands every event to `handler` until an ending, then disconnects.
    /// - Throws: what `handler` throws.
    func run(_ handler: some AccountEventHandling) async throws -> Ending {
        let signals = TerminationSignals()
        defer { signals.release() }
        let events = account.events()  // subscribed before connecting: nothing is missed
        await account.connect(using: WebSocketRealtimeConnector(webSocketURL: try ServerOption.address(serverURL).webSocketURL))
        let (console, verbose, timeout) = (self.console, self.verbose, self.timeout)
        let ending: Ending
        do {
            ending = try await withThrowingTaskGroup(of: Ending.self) { group in
                group.addTask {
                    var started = false  // the state stream opens with `disconnected`, before the first attempt
                    for await event in events {
                        if case .connection(let state) = event {
                            started = started || state != .disconnected
                            if verbose && started { console.status("connection: \(Self.describe(state))") }
                            if case .failed(let reason) = state { return .sessionEnded(reason: reason) }
                            continue
                        }
                        if event == .sessionEnded { return .sessionEnded(reason: "session ended") }
                        if !(try await handler.handle(event)) { return .done }
                    }
                    return .eventsEnded
                }
                group.addTask { await signals.next().map(Ending.signal) ?? .eventsEnded }
                group.addTask { [account] in try await Self.sendQueuedElsewhere(account) }
                if let timeout {
                    group.addTask {
                        try await Task.sleep(for: .milliseconds(Int64(timeout * 1000)))
                        return .timedOut
                    }
                }
                defer { group.cancelAll() }
                return try await group.next() ?? .eventsEnded
            }
        } catch {
            await account.disconnect()
            throw error
        }
        await account.disconnect()
        return ending
    }

    /// How often a connected command looks for outbox entries another process queued on its
    /// store (a `send` that found the server away): they go out within about a second.
    static let queuedElsewhereCheck: Duration = .milliseconds(250)

    /// Sends what other processes queue on the store, until cancelled (never returns otherwise).
    /// - Throws: `CancellationError` when the session ends.
    private static func sendQueuedElsewhere(_ account: Account) async throws -> Ending {
        while true {
            try await Task.sleep(for: queuedElsewhereCheck)
            try? await account.sendEntriesQueuedElsewhere()
        }
    }

    /// A connection state in words.
    static func describe(_ state: ConnectionState) -> String {
        switch state {
        case .disconnected: "disconnected"
        case .connecting: "connecting"
        case .connected: "connected"
        case .reconnecting(let attempt): "reconnecting (attempt \(attempt))"
        case .polling: "polling (the socket keeps failing; REST after 2, 4, 8 and 16 s, then every 30 s, while it is retried)"
        case .failed(let reason): "failed (\(reason))"
        }
    }

    /// The error a session that ended this way leaves, if any.
    static func failure(for ending: Ending) -> ToolError? {
        switch ending {
        case .sessionEnded(let reason):
            ToolError(.authentication, "the connection ended (\(reason)): log in again with account login")
        case .eventsEnded:
            ToolError(.failure, "the account stopped reporting events")
        case .done, .timedOut, .signal:
            nil
        }
    }
}
