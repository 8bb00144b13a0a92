/// The own-echo rule of the deaf-socket detection (docs/spec/sync.md "Connection"): a message of ours
/// posted while the socket is open must come back on it within ``ConnectionPolicy/echoTimeout``.
extension ConnectionSupervisor {
    /// A message of ours was posted (its 201 arrived): unless the socket delivered it already,
    /// its echo is expected within ``ConnectionPolicy/echoTimeout``; without it the socket is
    /// deaf, so it is closed and the connection reopened (with the catch-up). Ignored unless
    /// connected.
    public func expectEcho(messageID: MessageID) {
        guard !recentlyDelivered.contains(messageID) else { return }
        apply(.echoExpected(messageID: messageID))
    }

    /// The socket delivered `messageID`: remembered, and its echo is no longer awaited.
    func socketDelivered(messageID: MessageID) {
        recentlyDelivered.insert(messageID)
        apply(.echoSeen(messageID: messageID))
    }
}
