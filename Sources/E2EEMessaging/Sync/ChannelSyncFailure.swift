import E2EEKeyStore

/// A failure while catching up one channel (docs/spec/sync.md guarantee 10): recorded for that channel
/// and surfaced as ``AccountEvent/channelSyncFailed(_:)``; every other channel, the pending
/// queue and key maintenance went on. `reason` is public text (an error's type and case, ids),
/// never a plaintext or a key.
public struct ChannelSyncFailure: Sendable, Equatable {
    /// The channel that failed (`nil` for work that belongs to no channel: the pending queue,
    /// key maintenance, the channel list).
    public var channelID: ChannelID?
    /// What failed, as public text.
    public var reason: String
    /// When it failed.
    public var at: StoreTime
    /// When the channel is read again on its own (its backoff); `nil` for work that belongs to
    /// no channel, which the next catch-up runs again.
    public var retryAt: StoreTime?

    /// Creates the value.
    public init(channelID: ChannelID?, reason: String, at: StoreTime, retryAt: StoreTime? = nil) {
        self.channelID = channelID
        self.reason = reason
        self.at = at
        self.retryAt = retryAt
    }
}

/// Which failures stop a whole catch-up and which stay with the channel they happened in.
enum SyncFailureScope: Equatable {
    /// The session as a whole is over or the work was cancelled (logged out, session ended):
    /// nothing else can go on, and the connection supervisor must hear it.
    case everything
    /// The server did not answer usefully (no answer in time, a 5xx, a 429). For a channel's
    /// reads this may be that channel alone (a hostile or broken server can fail one channel's
    /// pages and serve the rest), so it stays with the channel; for work that belongs to no
    /// channel, or when every channel failed so, it is the server's and is thrown.
    case server
    /// Only this channel's work failed (a 403, a 404, a refused copy, an undecodable page).
    case thisChannel

    init(_ error: any Error) {
        if error is CancellationError {
            self = .everything
            return
        }
        switch error as? ServerError {
        case .unauthenticated?, .sessionEnded?, .notLoggedIn?:
            self = .everything
        case .transport?, .rateLimited?, .server?:
            self = .server
        default:
            self = .thisChannel
        }
    }
}
