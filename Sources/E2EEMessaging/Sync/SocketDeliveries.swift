import Synchronization

/// The channels an open socket delivered messages into since the last confirmation read
/// (docs/spec/sync.md §11.6). A socket can lose events without noticing — the server's fan-out
/// dies and another client's new socket heals it (docs/spec/server-api.md §12) — so these
/// channels are read over REST back to their verified marks
/// (``ConnectionPolicy/socketConfirmationDelay`` after the first delivery).
final class SocketDeliveries: Sendable {
    private let channels = Mutex<Set<ChannelID>>([])

    /// Nothing delivered yet.
    init() {}

    /// The socket delivered messages into `channelID`.
    func delivered(into channelID: ChannelID) {
        channels.withLock { _ = $0.insert(channelID) }
    }

    /// The channels delivered into since the last call; forgotten here.
    func take() -> Set<ChannelID> {
        channels.withLock { channels in
            defer { channels = [] }
            return channels
        }
    }
}
