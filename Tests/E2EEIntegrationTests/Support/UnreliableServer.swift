import E2EEMessaging
import Foundation

/// The real HTTP client with the failures a network adds after the server has acted: a POST
/// the server stored but whose answer never arrived (a timeout), a read that does not yet show
/// a row the server just stored (docs/spec/server-api.md: success comes before the commit), a POST that hangs
/// until the process is killed, and something happening in the middle of a history read (a
/// message sent during a catch-up). Everything else passes through unchanged.
final class UnreliableServer: ForwardingChatServer, @unchecked Sendable {
    let base: any ChatServerAPI
    private let lock = NSLock()
    private var storeThenTimeOut = 0
    private var hideRecentReads = 0
    private var hangAfterStoring = false
    private var historyHook: (runsFirst: Bool, hook: @Sendable () async throws -> Void)?
    private var postHook: (@Sendable () async -> Void)?
    private(set) var postsStored = 0
    private var undecodableChannels: Set<String> = []
    private var heldChannels: Set<String> = []
    private var heldReadCount = 0
    /// How many history reads met a held channel (``holdHistory(of:)``) and waited.
    var historyReadsHeld: Int { lock.withLock { heldReadCount } }

    init(_ base: any ChatServerAPI) { self.base = base }

    /// The next `count` message POSTs reach the server, which stores them, but the client sees a timeout.
    func loseAnswers(_ count: Int) { lock.withLock { storeThenTimeOut = count } }
    /// The next `count` history reads return an empty page (the rows are not visible yet).
    func hideRecentMessages(_ count: Int) { lock.withLock { hideRecentReads = count } }
    /// The next message POST is stored, then the call never returns (until cancelled).
    func hangAfterNextPost() { lock.withLock { hangAfterStoring = true } }
    /// Runs `hook` once, during the next history read: before the server is asked (what the hook
    /// does is on that page) or after it answered (it is not).
    func onNextHistoryRead(runsFirst: Bool, _ hook: @escaping @Sendable () async throws -> Void) {
        lock.withLock { historyHook = (runsFirst, hook) }
    }

    /// Runs `hook` once, just before the next message POST goes out: after the message was
    /// encrypted — every send reads the device lists first — so that faults the hook injects
    /// on the server meet the POST and what follows it, not those reads.
    func beforeNextPost(_ hook: @escaping @Sendable () async -> Void) {
        lock.withLock { postHook = hook }
    }

    func sendMessage(channelID: ChannelID, _ message: OutgoingMessage) async throws -> ServerMessage {
        let hook = lock.withLock { () -> (@Sendable () async -> Void)? in
            defer { postHook = nil }
            return postHook
        }
        await hook?()
        let sent = try await base.sendMessage(channelID: channelID, message)
        let (lose, hang) = lock.withLock { () -> (Bool, Bool) in
            postsStored += 1
            defer {
                if storeThenTimeOut > 0 { storeThenTimeOut -= 1 }
                hangAfterStoring = false
            }
            return (storeThenTimeOut > 0, hangAfterStoring)
        }
        if hang { try await Task.sleep(nanoseconds: 3_600_000_000_000) }
        if lose { throw ServerError.transport("timed out") }
        return sent
    }

    /// Every history read of `channelID` fails as an undecodable page (one broken channel).
    func breakHistory(of channelID: String) { lock.withLock { _ = undecodableChannels.insert(channelID.lowercased()) } }
    /// History reads of `channelID` work again.
    func repairHistory(of channelID: String) { lock.withLock { _ = undecodableChannels.remove(channelID.lowercased()) } }

    /// History reads of `channelID` wait (a slow or stalled server for that channel) until
    /// ``releaseHistory(of:)``.
    func holdHistory(of channelID: String) { lock.withLock { _ = heldChannels.insert(channelID.lowercased()) } }
    /// History reads of `channelID` go on.
    func releaseHistory(of channelID: String) { lock.withLock { _ = heldChannels.remove(channelID.lowercased()) } }

    func messages(channelID: ChannelID, before: ServerTimestamp?, limit: Int) async throws -> MessagePage {
        if lock.withLock({ heldChannels.contains(channelID.rawValue) }) { lock.withLock { heldReadCount += 1 } }
        while lock.withLock({ heldChannels.contains(channelID.rawValue) }) { try await Task.sleep(for: .milliseconds(10)) }
        if lock.withLock({ undecodableChannels.contains(channelID.rawValue) }) { throw ServerError.decoding("undecodable page") }
        let hide = lock.withLock { () -> Bool in
            defer { if hideRecentReads > 0 { hideRecentReads -= 1 } }
            return hideRecentReads > 0
        }
        if hide { return MessagePage(messages: [], hasMore: false) }
        let hook = lock.withLock { () -> (runsFirst: Bool, hook: @Sendable () async throws -> Void)? in
            defer { historyHook = nil }
            return historyHook
        }
        if let hook, hook.runsFirst { try await hook.hook() }
        let page = try await base.messages(channelID: channelID, before: before, limit: limit)
        if let hook, !hook.runsFirst { try await hook.hook() }
        return page
    }
}
