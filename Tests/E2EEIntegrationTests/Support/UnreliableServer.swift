import E2EEMessaging
import Foundation

/// The real HTTP client with the failures a network adds after the server has acted: a POST
/// the server stored but whose answer never arrived (a timeout), a read that does not yet show
/// a row the server just stored (docs/spec/server-api.md: success comes before the commit), a POST that hangs
/// until the process is killed, and something happening in the middle of a history read (a
/// message sent during a catch-up). Everything else passes through unchanged.
final class UnreliableServer: ChatServerAPI, @unchecked Sendable {
    private let base: any ChatServerAPI
    private let lock = NSLock()
    private var storeThenTimeOut = 0
    private var hideRecentReads = 0
    private var hangAfterStoring = false
    private var historyHook: (runsFirst: Bool, hook: @Sendable () async throws -> Void)?
    private(set) var postsStored = 0
    private var undecodableChannels: Set<String> = []
    private var heldChannels: Set<String> = []

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

    func sendMessage(channelID: String, _ message: OutgoingMessage) async throws -> ServerMessage {
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

    func messages(channelID: String, before: ServerTimestamp?, limit: Int) async throws -> MessagePage {
        while lock.withLock({ heldChannels.contains(channelID.lowercased()) }) { try await Task.sleep(for: .milliseconds(10)) }
        if lock.withLock({ undecodableChannels.contains(channelID.lowercased()) }) { throw ServerError.decoding("undecodable page") }
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

    func register(username: String, password: String, deviceName: String) async throws -> TokenResponse {
        try await base.register(username: username, password: password, deviceName: deviceName)
    }
    func login(username: String, password: String, deviceName: String) async throws -> TokenResponse {
        try await base.login(username: username, password: password, deviceName: deviceName)
    }
    func logout() async throws { try await base.logout() }
    func logoutAll() async throws { try await base.logoutAll() }
    func webSocketTicket() async throws -> String { try await base.webSocketTicket() }
    func currentUser() async throws -> ServerUser { try await base.currentUser() }
    func user(id: String) async throws -> ServerUser { try await base.user(id: id) }
    func searchUsers(query: String) async throws -> [ServerUser] { try await base.searchUsers(query: query) }
    func lookupUser(identity: String) async throws -> ServerUser { try await base.lookupUser(identity: identity) }
    func uploadKeys(_ upload: KeyBundleUpload) async throws { try await base.uploadKeys(upload) }
    func addOneTimePreKeys(deviceID: String, keys: [String]) async throws -> Int { try await base.addOneTimePreKeys(deviceID: deviceID, keys: keys) }
    func bundles(userID: String) async throws -> [DeviceBundle] { try await base.bundles(userID: userID) }
    func bundle(deviceID: String) async throws -> DeviceBundle { try await base.bundle(deviceID: deviceID) }
    func uploadSenderKey(channelID: String, _ entry: SenderKeyEntry) async throws { try await base.uploadSenderKey(channelID: channelID, entry) }
    func senderKeys(channelID: String) async throws -> [SenderKeyEntry] { try await base.senderKeys(channelID: channelID) }
    func createChannel(name: String) async throws -> ServerChannel { try await base.createChannel(name: name) }
    func channels() async throws -> [ServerChannel] { try await base.channels() }
    func channel(id: String) async throws -> ServerChannel { try await base.channel(id: id) }
    func renameChannel(id: String, name: String) async throws -> ServerChannel { try await base.renameChannel(id: id, name: name) }
    func deleteChannel(id: String) async throws { try await base.deleteChannel(id: id) }
    func joinChannel(id: String) async throws { try await base.joinChannel(id: id) }
    func leaveChannel(id: String) async throws { try await base.leaveChannel(id: id) }
    func members(channelID: String) async throws -> [ChannelMember] { try await base.members(channelID: channelID) }
    func addMember(channelID: String, userID: String) async throws { try await base.addMember(channelID: channelID, userID: userID) }
    func openDirectMessage(userID: String) async throws -> ServerChannel { try await base.openDirectMessage(userID: userID) }
    func editMessage(id: String, content: String) async throws -> ServerMessage { try await base.editMessage(id: id, content: content) }
    func deleteMessage(id: String) async throws { try await base.deleteMessage(id: id) }
    func devices() async throws -> [ServerDevice] { try await base.devices() }
    func deleteDevice(id: String) async throws { try await base.deleteDevice(id: id) }
}
