/// Why the supervisor asks the delegate to catch up over REST (docs/spec/sync.md guarantee 6). Every
/// catch-up is the same operation — page back from newest until the store overlaps, merge,
/// dedupe — the reason only says what triggered it.
package enum CatchUpReason: Sendable, Equatable {
    /// A socket just opened (first connect, reconnect, foreground, network change). Events of
    /// that socket are handed over only after this catch-up returns.
    case connected
    /// The second pass, ``ConnectionPolicy/followUpCatchUp`` after the socket opened: the server
    /// subscribes a moment after the handshake and gives no ready signal (docs/spec/server-api.md §6).
    case connectedFollowUp
    /// A channel was subscribed at runtime (``ConnectionSupervisor/subscribe(channelID:)``).
    case subscribed(channelID: ChannelID)
    /// The second pass after a runtime subscribe.
    case subscribedFollowUp(channelID: ChannelID)
    /// The app came to the foreground while the socket was still open.
    case foreground
    /// ``ConnectionPolicy/socketConfirmationDelay`` passed since the open socket delivered a
    /// message: the channels it delivered into are read over REST, since the socket may have
    /// lost what it never saw (docs/spec/sync.md §11.6).
    case socketConfirmation
}
