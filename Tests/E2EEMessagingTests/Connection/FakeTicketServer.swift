import E2EETestSupport
import E2EEMessaging
import Foundation

/// A ``ChatServerAPI`` whose only working call is `webSocketTicket()`: numbered tickets, or
/// scripted failures. Every other call fails (the supervisor never makes them).
final class FakeTicketServer: ChatServerAPI, @unchecked Sendable {
    private let lock = NSLock()
    private var script: [ServerError] = []
    private var issued = 0
    /// Ticket requests made (successful or not).
    let requests = Watched<Int>(0)

    /// The next `count` ticket requests fail with `error`.
    func failNext(_ count: Int, with error: ServerError) {
        lock.withLock { script += Array(repeating: error, count: count) }
    }

    func webSocketTicket() async throws -> String {
        requests.update { $0 += 1 }
        let outcome: Result<String, ServerError> = lock.withLock {
            if !script.isEmpty { return .failure(script.removeFirst()) }
            issued += 1
            return .success("ticket-\(issued)")
        }
        return try outcome.get()
    }

    private var healthError: ServerError? = .notFound(detail: "no health route")
    /// Health checks answered so far.
    let healthChecks = Watched<Int>(0)

    /// What `checkHealth()` answers from now on: nil is a 200, else that error.
    func answerHealth(with error: ServerError?) {
        lock.withLock { healthError = error }
    }

    func checkHealth() async throws {
        let error: ServerError? = lock.withLock { healthError }
        healthChecks.update { $0 += 1 }
        if let error { throw error }
    }

    private var unused: ServerError { .unexpectedStatus(501, body: "not used by the supervisor") }

    func register(username: String, password: String, deviceName: String) async throws -> TokenResponse { throw unused }
    func login(username: String, password: String, deviceName: String) async throws -> TokenResponse { throw unused }
    func logout() async throws { throw unused }
    func logoutAll() async throws { throw unused }
    func currentUser() async throws -> ServerUser { throw unused }
    func user(id: UserID) async throws -> ServerUser { throw unused }
    func searchUsers(query: String) async throws -> [ServerUser] { throw unused }
    func lookupUser(identity: String) async throws -> ServerUser { throw unused }
    func uploadKeys(_ upload: KeyBundleUpload) async throws { throw unused }
    func addOneTimePreKeys(deviceID: DeviceID, keys: [String]) async throws -> Int { throw unused }
    func bundles(userID: UserID) async throws -> [DeviceBundle] { throw unused }
    func bundle(deviceID: DeviceID) async throws -> DeviceBundle { throw unused }
    func uploadSenderKey(channelID: ChannelID, _ entry: SenderKeyEntry) async throws { throw unused }
    func senderKeys(channelID: ChannelID) async throws -> [SenderKeyEntry] { throw unused }
    func createChannel(name: String) async throws -> ServerChannel { throw unused }
    func channels() async throws -> [ServerChannel] { throw unused }
    func channel(id: ChannelID) async throws -> ServerChannel { throw unused }
    func renameChannel(id: ChannelID, name: String) async throws -> ServerChannel { throw unused }
    func deleteChannel(id: ChannelID) async throws { throw unused }
    func joinChannel(id: ChannelID) async throws { throw unused }
    func leaveChannel(id: ChannelID) async throws { throw unused }
    func members(channelID: ChannelID) async throws -> [ChannelMember] { throw unused }
    func addMember(channelID: ChannelID, userID: UserID) async throws { throw unused }
    func openDirectMessage(userID: UserID) async throws -> ServerChannel { throw unused }
    func messages(channelID: ChannelID, before: ServerTimestamp?, limit: Int) async throws -> MessagePage { throw unused }
    func sendMessage(channelID: ChannelID, _ message: OutgoingMessage) async throws -> ServerMessage { throw unused }
    func editMessage(id: MessageID, content: String) async throws -> ServerMessage { throw unused }
    func deleteMessage(id: MessageID) async throws { throw unused }
    func devices() async throws -> [ServerDevice] { throw unused }
    func deleteDevice(id: DeviceID) async throws { throw unused }
}
