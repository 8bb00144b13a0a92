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
    func user(id: String) async throws -> ServerUser { throw unused }
    func searchUsers(query: String) async throws -> [ServerUser] { throw unused }
    func lookupUser(identity: String) async throws -> ServerUser { throw unused }
    func uploadKeys(_ upload: KeyBundleUpload) async throws { throw unused }
    func addOneTimePreKeys(deviceID: String, keys: [String]) async throws -> Int { throw unused }
    func bundles(userID: String) async throws -> [DeviceBundle] { throw unused }
    func bundle(deviceID: String) async throws -> DeviceBundle { throw unused }
    func uploadSenderKey(channelID: String, _ entry: SenderKeyEntry) async throws { throw unused }
    func senderKeys(channelID: String) async throws -> [SenderKeyEntry] { throw unused }
    func createChannel(name: String) async throws -> ServerChannel { throw unused }
    func channels() async throws -> [ServerChannel] { throw unused }
    func channel(id: String) async throws -> ServerChannel { throw unused }
    func renameChannel(id: String, name: String) async throws -> ServerChannel { throw unused }
    func deleteChannel(id: String) async throws { throw unused }
    func joinChannel(id: String) async throws { throw unused }
    func leaveChannel(id: String) async throws { throw unused }
    func members(channelID: String) async throws -> [ChannelMember] { throw unused }
    func addMember(channelID: String, userID: String) async throws { throw unused }
    func openDirectMessage(userID: String) async throws -> ServerChannel { throw unused }
    func messages(channelID: String, before: ServerTimestamp?, limit: Int) async throws -> MessagePage { throw unused }
    func sendMessage(channelID: String, _ message: OutgoingMessage) async throws -> ServerMessage { throw unused }
    func editMessage(id: String, content: String) async throws -> ServerMessage { throw unused }
    func deleteMessage(id: String) async throws { throw unused }
    func devices() async throws -> [ServerDevice] { throw unused }
    func deleteDevice(id: String) async throws { throw unused }
}
