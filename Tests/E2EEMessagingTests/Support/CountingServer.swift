import E2EEMessaging
import Foundation

/// Counts calls across tasks.
final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    var value: Int { lock.withLock { count } }
    func increment() { lock.withLock { count += 1 } }
}

/// A ``ChatServerAPI`` that counts what it is asked: an empty channel list, and a key bundle
/// whose one-time prekey list it keeps (upload replaces it, `one-time` appends). Every other
/// call fails.
final class CountingServer: ChatServerAPI, @unchecked Sendable {
    private let reads = Counter()
    private let lock = NSLock()
    private var offered = 0
    private var keyRequests = 0
    /// `GET /channels` calls made.
    var listReads: Int { reads.value }
    /// One-time prekeys the server offers now.
    var offeredOneTimePrekeys: Int { lock.withLock { offered } }
    /// Key uploads made (`POST /keys/upload` and `POST /keys/one-time`).
    var keyUploads: Int { lock.withLock { keyRequests } }

    func uploadKeys(_ upload: KeyBundleUpload) async throws {
        lock.withLock {
            keyRequests += 1
            offered = upload.oneTimePreKeys.count
        }
    }

    func addOneTimePreKeys(deviceID: DeviceID, keys: [String]) async throws -> Int {
        lock.withLock {
            keyRequests += 1
            offered += keys.count
            return offered
        }
    }

    func bundle(deviceID: DeviceID) async throws -> DeviceBundle { throw ServerError.notFound(detail: nil) }

    func channels() async throws -> [ServerChannel] {
        reads.increment()
        return []
    }

    private var unused: ServerError { .unexpectedStatus(501, body: "not used here") }

    func webSocketTicket() async throws -> String { throw unused }
    func register(username: String, password: String, deviceName: String) async throws -> TokenResponse { throw unused }
    func login(username: String, password: String, deviceName: String) async throws -> TokenResponse { throw unused }
    func logout() async throws { throw unused }
    func logoutAll() async throws { throw unused }
    func currentUser() async throws -> ServerUser { throw unused }
    func user(id: UserID) async throws -> ServerUser { throw unused }
    func searchUsers(query: String) async throws -> [ServerUser] { throw unused }
    func lookupUser(identity: String) async throws -> ServerUser { throw unused }
    func bundles(userID: UserID) async throws -> [DeviceBundle] { throw unused }
    func uploadSenderKey(channelID: ChannelID, _ entry: SenderKeyEntry) async throws { throw unused }
    func senderKeys(channelID: ChannelID) async throws -> [SenderKeyEntry] { throw unused }
    func createChannel(name: String) async throws -> ServerChannel { throw unused }
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
