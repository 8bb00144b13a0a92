import E2EETestSupport
import E2EEMessaging
import E2EETransport
import Foundation

/// A stand-in for the account on the delegate side: its catch-ups and polls really page the
/// newest messages of its channels over REST (so a message sent while the socket was down is
/// found), and it records what arrived by which path.
final class ConnectionProbe: ConnectionDelegate, @unchecked Sendable {
    /// What the probe saw.
    struct Log: Sendable {
        var catchUps: [CatchUpReason] = []
        var polls = 0
        /// Message ids that arrived as `message.new` on a socket, in order.
        var socketMessages: [String] = []
        /// Message ids found by catch-ups and polls.
        var restMessages: Set<String> = []
        var refused: [String] = []
        var background = 0
        var sessionEnded = 0
    }

    private let api: any ChatServerAPI
    private let lock = NSLock()
    private var channels: [ChannelID]
    let log = Watched(Log())

    init(api: any ChatServerAPI, channels: [ChannelID]) {
        self.api = api
        self.channels = channels
    }

    /// Adds a channel to the ones listed and paged.
    func add(channelID: ChannelID) { lock.withLock { channels.append(channelID) } }

    func channelsToSubscribe() async -> [ChannelID] { lock.withLock { channels } }

    func catchUp(reason: CatchUpReason) async throws {
        log.update { $0.catchUps.append(reason) }
        try await pageNewest()
    }

    func poll() async throws {
        log.update { $0.polls += 1 }
        try await pageNewest()
    }

    func received(_ event: RealtimeEvent) async {
        if case .messageNew(let message) = event { log.update { $0.socketMessages.append(message.id.rawValue) } }
    }

    func socketMissedMessages(connectedFor: Duration, grace: Duration) async throws -> Bool { false }
    func watchMembership() async {}
    func inputRefused(reason: String) async { log.update { $0.refused.append(reason) } }
    func sessionEnded() async { log.update { $0.sessionEnded += 1 } }
    func willDisconnectForBackground() async { log.update { $0.background += 1 } }

    /// Every message id seen by either path.
    var allMessages: Set<String> {
        let log = log.value
        return log.restMessages.union(log.socketMessages)
    }

    private func pageNewest() async throws {
        for channelID in lock.withLock({ channels }) {
            let page = try await api.messages(channelID: channelID, before: nil, limit: 50)
            log.update { $0.restMessages.formUnion(page.messages.map(\.id.rawValue)) }
        }
    }
}
