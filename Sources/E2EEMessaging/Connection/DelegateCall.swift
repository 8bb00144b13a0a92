/// One call the supervisor owes its delegate. Calls are queued and made one at a time, in
/// order, so a socket's events reach the delegate after the catch-up that its opening started.
enum DelegateCall: Sendable {
    /// Subscribe the delegate's channels and `channels` on `connection`, then catch up.
    case opened(any RealtimeConnection, channels: [ChannelID])
    /// Subscribe one channel on `connection`.
    case subscribe(any RealtimeConnection, channelID: ChannelID)
    /// Catch up over REST.
    case catchUp(CatchUpReason)
    /// Hand over one event.
    case event(RealtimeEvent)
    /// Hand over the new messages one socket delivered in a row (at least one), as many as
    /// queued up before this call was made.
    case messages(FrameBatch)
    /// Report a frame that did not decode.
    case malformedFrame(reason: String, byteCount: Int)
    /// Poll over REST.
    case poll
    /// Ask whether the socket of attempt `connection`, open since `openedAt`, missed a message.
    case checkSocket(connection: Int, openedAt: ContinuousClock.Instant)
    /// Re-read membership.
    case watchMembership
    /// The session ended.
    case sessionEnded
    /// The app went to the background; resume `done` once the delegate has persisted.
    case background(done: CheckedContinuation<Void, Never>)
}
