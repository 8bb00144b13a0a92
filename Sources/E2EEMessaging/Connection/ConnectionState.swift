/// The realtime connection's state (docs/spec/sync.md "Connection"), observable as an `AsyncSequence`.
public enum ConnectionState: Sendable, Equatable {
    /// Not connected and not trying (stopped, backgrounded, or logged out).
    case disconnected
    /// The first attempt is under way.
    case connecting
    /// The socket is open and catch-up has been started.
    case connected
    /// Attempt `attempt` (1, 2, …) after a failure or a lost connection.
    case reconnecting(attempt: Int)
    /// The socket keeps failing: REST polling is running while the socket is probed.
    case polling
    /// The session ended or the server refuses this client; no more attempts until the app acts.
    case failed(reason: String)
}
