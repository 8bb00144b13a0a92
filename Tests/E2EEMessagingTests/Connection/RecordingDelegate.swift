import E2EETestSupport
import E2EEMessaging
import Foundation

/// A ``ConnectionDelegate`` that records every call in order, lists the channels it is told
/// to, and can hold catch-ups at a gate or make them throw.
final class RecordingDelegate: ConnectionDelegate, @unchecked Sendable {
    /// One delegate call.
    enum Call: Sendable, Equatable {
        case catchUp(CatchUpReason)
        case event(RealtimeEvent)
        case poll
        case checkSocket
        case watchMembership
        case inputRefused(String)
        case sessionEnded
        case background
    }

    private let lock = NSLock()
    private var listed: [ChannelID]
    private var catchUpError: ServerError?
    private var socketMissed = false
    /// Every call, in order (a catch-up is recorded when it starts).
    let calls = Watched<[Call]>([])
    /// The size of each batch of new messages handed over at once (each message is also
    /// recorded in ``calls`` as its `message.new` event, in order).
    let batches = Watched<[Int]>([])
    /// Catch-ups wait here until it opens (open unless the test closes it).
    let catchUpGate = Gate(open: true)

    init(channels: [ChannelID] = []) { listed = channels }

    /// The channels answered from now on.
    func setChannels(_ channels: [ChannelID]) { lock.withLock { listed = channels } }

    /// Makes every catch-up from now on throw `error` (nil: succeed).
    func failCatchUps(with error: ServerError?) { lock.withLock { catchUpError = error } }

    /// Makes every deaf-socket check from now on answer `missed`.
    func answerChecks(missed: Bool) { lock.withLock { socketMissed = missed } }

    func socketMissedMessages(connectedFor: Duration, grace: Duration) async throws -> Bool {
        calls.update { $0.append(.checkSocket) }
        return lock.withLock { socketMissed }
    }

    func channelsToSubscribe() async -> [ChannelID] { lock.withLock { listed } }

    func catchUp(reason: CatchUpReason) async throws {
        calls.update { $0.append(.catchUp(reason)) }
        await catchUpGate.pass()
        if let error = lock.withLock({ catchUpError }) { throw error }
    }

    func received(_ event: RealtimeEvent) async { calls.update { $0.append(.event(event)) } }
    func received(messages: [ServerMessage]) async {
        batches.update { $0.append(messages.count) }
        calls.update { $0 += messages.map { .event(.messageNew($0)) } }
    }
    func poll() async throws { calls.update { $0.append(.poll) } }
    func watchMembership() async { calls.update { $0.append(.watchMembership) } }
    func inputRefused(reason: String) async { calls.update { $0.append(.inputRefused(reason)) } }
    func sessionEnded() async { calls.update { $0.append(.sessionEnded) } }
    func willDisconnectForBackground() async { calls.update { $0.append(.background) } }

    /// How many calls equal `call`.
    func count(_ call: Call) -> Int { calls.value.filter { $0 == call }.count }

    /// The events received, in order.
    var events: [RealtimeEvent] {
        calls.value.compactMap { if case .event(let event) = $0 { return event } else { return nil } }
    }
}

/// A gate tasks wait at while it is closed.
final class Gate: @unchecked Sendable {
    private let lock = NSLock()
    private var isOpen: Bool
    private var waiting: [CheckedContinuation<Void, Never>] = []

    init(open: Bool) { isOpen = open }

    /// Returns at once when open, else when it opens.
    func pass() async {
        await withCheckedContinuation { continuation in
            let passNow: Bool = lock.withLock {
                if isOpen { return true }
                waiting.append(continuation)
                return false
            }
            if passNow { continuation.resume() }
        }
    }

    /// Closes the gate.
    func close() { lock.withLock { isOpen = false } }

    /// Opens the gate and lets every waiter through.
    func open() {
        let released: [CheckedContinuation<Void, Never>] = lock.withLock {
            isOpen = true
            defer { waiting = [] }
            return waiting
        }
        for continuation in released { continuation.resume() }
    }
}
