import E2EEMessaging
import E2EETestSupport

/// Watches one account through its events: its connection state, and per channel how many
/// readable messages (decrypted or our own) its timeline holds. The counts are re-read from
/// the store after timeline events, coalesced (a burst of events costs one read), so a test can
/// wait for "every message is here" as a signal instead of polling.
final class AccountMonitor: Sendable {
    /// The account watched.
    let account: Account
    /// Readable messages per channel id, as last read.
    let readable: Watched<[ChannelID: Int]>
    /// The latest connection state seen.
    let connection: Watched<ConnectionState>
    private let tasks: [Task<Void, Never>]

    /// Starts watching `account`'s `channelIDs` (subscribe before connecting, so no state is
    /// missed).
    init(_ account: Account, channelIDs: [ChannelID]) {
        self.account = account
        let events = account.events()
        let (nudges, nudge) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        let readable = Watched<[ChannelID: Int]>([:])
        let connection = Watched<ConnectionState>(.disconnected)
        self.readable = readable
        self.connection = connection
        let listener = Task {
            for await event in events {
                switch event {
                case .timeline: nudge.yield()
                case .connection(let state): connection.update { $0 = state }
                default: continue
                }
            }
            nudge.finish()
        }
        let reader = Task {
            for await _ in nudges {
                var counts: [ChannelID: Int] = [:]
                for channelID in channelIDs {
                    let items = (try? await account.timeline(channelID: channelID, limit: 100_000)) ?? []
                    counts[channelID] = items.filter { $0.state == .decrypted }.count
                }
                readable.update { $0 = counts }
            }
        }
        nudge.yield()
        tasks = [listener, reader]
    }

    /// Waits until the account reads `expected[channel]` messages in every channel.
    func waitForReadable(_ expected: [ChannelID: Int], limit: Duration) async -> Bool {
        await readable.wait(limit: limit) { counts in expected.allSatisfy { counts[$0.key] == $0.value } }
    }

    /// Waits until the connection is in `state`.
    func waitForConnection(_ state: ConnectionState, limit: Duration = .seconds(30)) async -> Bool {
        await connection.wait(limit: limit) { $0 == state }
    }

    /// Stops watching.
    func stop() {
        for task in tasks { task.cancel() }
    }
}
