/// How a WebSocket connection keeps itself alive and how much it accepts from the server.
///
/// The keepalive follows docs/spec/sync.md: the client answers the server's pings, pings every
/// ``pingInterval`` itself — unless a server ping arrived within the last ``pingInterval``
/// (the reference server pings every 20 s, so then only its keepalive runs) — and declares the connection dead when ``missedPongLimit`` pings in a
/// row went unanswered (checked when the next ping is due) or when no frame at all arrived for
/// ``idleTimeout``. With the defaults both rules fire after 90 s of silence.
public struct RealtimeConnectionOptions: Sendable, Equatable {
    /// How often the client pings; `nil` sends no pings (and disables the missed-pong rule).
    public var pingInterval: Duration?
    /// How many pings in a row may go unanswered; when the next ping is due after that many,
    /// the connection is dead. At least 1.
    public var missedPongLimit: Int
    /// No frame at all (data, ping, pong or close) for this long means the connection is dead;
    /// `nil` disables the rule.
    public var idleTimeout: Duration?
    /// The largest message (all its fragments) that is decoded; a larger one is skipped without
    /// being buffered and reported as `E2EEMessaging.RealtimeUpdate.malformedFrame(reason:byteCount:)`.
    public var maxMessageBytes: Int
    /// The largest single frame accepted; a larger frame ends the connection (close code 1009).
    /// Never below ``maxMessageBytes``.
    public var maxFrameBytes: Int
    /// How long the TCP connect, TLS and HTTP upgrade may take together.
    public var handshakeTimeout: Duration
    /// How long a close waits for the other side's close frame and TCP close before the
    /// connection is dropped.
    public var closeTimeout: Duration

    /// Creates options; the defaults are docs/spec/sync.md's (ping every 30 s, dead after 2 missed pongs
    /// or 90 s without a frame), messages up to 1 MiB, frames up to 16 MiB.
    public init(
        pingInterval: Duration? = .seconds(30),
        missedPongLimit: Int = 2,
        idleTimeout: Duration? = .seconds(90),
        maxMessageBytes: Int = 1 << 20,
        maxFrameBytes: Int = 16 << 20,
        handshakeTimeout: Duration = .seconds(10),
        closeTimeout: Duration = .seconds(5)
    ) {
        self.pingInterval = pingInterval
        self.missedPongLimit = max(1, missedPongLimit)
        self.idleTimeout = idleTimeout
        self.maxMessageBytes = max(1, maxMessageBytes)
        self.maxFrameBytes = max(maxFrameBytes, self.maxMessageBytes)
        self.handshakeTimeout = handshakeTimeout
        self.closeTimeout = closeTimeout
    }

    /// docs/spec/sync.md's keepalive and the default limits.
    public static let standard = RealtimeConnectionOptions()
}
