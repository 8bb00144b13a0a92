import E2EETestSupport
import E2EEMessaging
import Foundation

/// A socket the test drives: it emits what the test says, records what the supervisor sends,
/// and ends like the real one (one final `closed`).
final class FakeConnection: RealtimeConnection, @unchecked Sendable {
    let updates: AsyncStream<RealtimeUpdate>
    private let sink: AsyncStream<RealtimeUpdate>.Continuation
    private let lock = NSLock()
    private var ended = false
    /// The ticket it was opened with.
    let ticket: String
    /// Channels subscribed on it, in order.
    let subscribed = Watched<[String]>([])
    /// Typing frames sent on it.
    let typing = Watched<[String]>([])
    /// Why it ended, once it has.
    let closeReason = Watched<RealtimeCloseReason?>(nil)

    init(ticket: String) {
        self.ticket = ticket
        (updates, sink) = AsyncStream.makeStream(of: RealtimeUpdate.self)
    }

    /// Emits an update (ignored once ended).
    func emit(_ update: RealtimeUpdate) {
        lock.withLock { if !ended { sink.yield(update) } }
    }

    /// Ends the socket as the server or the network would.
    func end(_ reason: RealtimeCloseReason) {
        let first: Bool = lock.withLock {
            guard !ended else { return false }
            ended = true
            sink.yield(.closed(reason))
            sink.finish()
            return true
        }
        if first { closeReason.update { $0 = reason } }
    }

    func subscribe(channelID: ChannelID) async throws {
        guard !lock.withLock({ ended }) else { throw ServerError.transport("closed") }
        subscribed.update { $0.append(channelID.rawValue) }
    }

    func sendTyping(channelID: ChannelID, started: Bool) async throws {
        guard !lock.withLock({ ended }) else { throw ServerError.transport("closed") }
        typing.update { $0.append("\(started ? "start" : "stop") \(channelID)") }
    }

    func close() async { end(.closedByClient) }
}

/// Opens ``FakeConnection``s, or fails as scripted (one scripted outcome per attempt, then
/// success).
final class FakeConnector: RealtimeConnecting, @unchecked Sendable {
    private let lock = NSLock()
    private var script: [ServerError?] = []
    private var hangs: [Gate] = []
    /// Every socket opened, in order.
    let opened = Watched<[FakeConnection]>([])
    /// Every ticket presented, in order.
    let tickets = Watched<[String]>([])

    /// The next `count` handshakes fail with `error`.
    func failNext(_ count: Int, with error: ServerError) {
        lock.withLock { script += Array(repeating: error, count: count) }
    }

    /// The next handshake does not answer until `gate` opens (then it succeeds).
    func hangNext(until gate: Gate) {
        lock.withLock { hangs.append(gate) }
    }

    func connect(ticket: String) async throws -> any RealtimeConnection {
        tickets.update { $0.append(ticket) }
        if let gate: Gate = lock.withLock({ hangs.isEmpty ? nil : hangs.removeFirst() }) { await gate.pass() }
        let failure: ServerError? = lock.withLock { script.isEmpty ? nil : script.removeFirst() }
        if let failure { throw failure }
        let connection = FakeConnection(ticket: ticket)
        opened.update { $0.append(connection) }
        return connection
    }

    /// The most recent socket.
    var latest: FakeConnection? { opened.value.last }
}
