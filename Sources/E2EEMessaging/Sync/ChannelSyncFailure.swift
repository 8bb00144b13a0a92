import E2EEKeyStore
import Foundation

/// A failure while catching up one channel (docs/spec/sync.md guarantee 10): recorded for that channel
/// and surfaced as ``AccountEvent/channelSyncFailed(_:)``; every other channel, the pending
/// queue and key maintenance went on. `reason` is public text (an error's type and case, ids),
/// never a plaintext or a key.
public struct ChannelSyncFailure: Sendable, Equatable {
    /// The channel that failed (`nil` for work that belongs to no channel: the pending queue,
    /// key maintenance, the channel list).
    public var channelID: String?
    /// What failed, as public text.
    public var reason: String
    /// When it failed.
    public var at: StoreTime

    /// Creates the value.
    public init(channelID: String?, reason: String, at: StoreTime) {
        self.channelID = channelID
        self.reason = reason
        self.at = at
    }
}

/// Which failures stop a whole catch-up and which stay with the channel they happened in.
enum SyncFailureScope {
    /// The server or the session as a whole is unusable (no network, 5xx, 429, logged out,
    /// cancelled): every other channel would fail the same way, and the connection supervisor
    /// must hear it to reconnect or poll.
    case everything
    /// Only this channel's work failed (a 403, a 404, a refused copy, an undecodable page).
    case thisChannel

    init(_ error: any Error) {
        if error is CancellationError {
            self = .everything
            return
        }
        switch error as? ServerError {
        case .transport?, .rateLimited?, .server?, .unauthenticated?, .sessionEnded?, .notLoggedIn?:
            self = .everything
        default:
            self = .thisChannel
        }
    }
}

/// The latest failure per channel, cleared when the channel catches up again.
actor ChannelFailureLog {
    private var failures: [String: ChannelSyncFailure] = [:]

    /// Records `failure` (replacing the channel's earlier one).
    func record(_ failure: ChannelSyncFailure) {
        failures[failure.channelID ?? ""] = failure
    }

    /// Forgets the failure of `channelID` (it caught up).
    func clear(_ channelID: String) {
        failures[channelID] = nil
    }

    /// Every recorded failure, channel order.
    func all() -> [ChannelSyncFailure] {
        failures.values.sorted { ($0.channelID ?? "", $0.at.microseconds) < ($1.channelID ?? "", $1.at.microseconds) }
    }
}
