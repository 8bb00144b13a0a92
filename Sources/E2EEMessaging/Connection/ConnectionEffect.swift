/// A timer of the ``ConnectionMachine``. Only the most recent timer of each kind is live: a
/// firing whose token is not the live one is ignored, so a late wake-up can never act twice.
struct ConnectionTimer: Sendable, Hashable {
    /// What a timer is for.
    enum Kind: Sendable, Hashable {
        /// The wait before the next attempt (backoff, rate limit, or probe while polling).
        case retry
        /// The attempt under way has taken too long.
        case attemptDeadline
        /// The network settle delay after `networkChanged()`.
        case settle
        /// The next REST poll.
        case poll
        /// The connection has stayed open long enough to clear the failure count.
        case stable
        /// The second catch-up after the socket opened.
        case followUp
        /// The second catch-up after a runtime subscribe of this channel.
        case subscribeFollowUp(ChannelID)
        /// The echo of this message of ours is due on the open socket.
        case echo(MessageID)
        /// The next light REST check that the open socket still delivers (when the echo check
        /// cannot watch it).
        case deafCheck
        /// The open socket has delivered nothing for a while: time for the echo check.
        case echoCheck
        /// The echo check was sent: an event is due on the socket before this fires.
        case echoCheckDeadline
        /// The next membership watch while connected.
        case membershipWatch
        /// The open socket delivered messages: the confirmation read of their channels is due.
        case socketConfirmation
        /// The next health check while the server cannot be reached.
        case healthCheck
    }

    /// The kind.
    var kind: Kind
    /// Which start of that kind this is.
    var token: Int
}

/// What the supervisor must do after the machine handled an input, in order.
enum ConnectionEffect: Sendable, Equatable {
    /// Publish a new state to every observer.
    case publish(ConnectionState)
    /// Start `timer` (replacing any timer of its kind).
    case startTimer(ConnectionTimer, after: Duration)
    /// Cancel the timer of this kind.
    case cancelTimer(ConnectionTimer.Kind)
    /// Run attempt `id`: fetch a fresh ticket, then connect with it.
    case attempt(id: Int)
    /// Close the socket of attempt `id` (or the one it opens, if it is still under way).
    case close(id: Int)
    /// The socket of attempt `id` is the connection now: subscribe the delegate's channels and
    /// `channels`, catch up (`.connected`), then hand over its events.
    case opened(id: Int, channels: [ChannelID])
    /// Send `subscribe` for `channelID` on the socket of attempt `id`.
    case subscribe(channelID: ChannelID, connection: Int)
    /// Ask the delegate to catch up.
    case catchUp(CatchUpReason)
    /// Ask the delegate to poll.
    case poll
    /// Run health check `id` (`GET /health`) and report ``ConnectionInput/healthChecked(id:_:)``.
    case checkHealth(id: Int)
    /// Ask the delegate whether the socket of attempt `id` missed a message (one light REST read).
    case checkSocket(id: Int)
    /// Send the echo check on the socket of attempt `id` (a `typing.stop` for the supervisor's
    /// own check channel).
    case sendEchoCheck(id: Int)
    /// Ask the delegate to re-read membership.
    case watchMembership
    /// Tell the delegate the session ended.
    case sessionEnded
    /// Tell the delegate the app went to the background (once the socket has drained).
    case background
}
