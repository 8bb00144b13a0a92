import E2EEMessaging
import Foundation

/// The real HTTP client behind a server that lies about what it lists (THREATS T11): it
/// flips a channel's kind, names another creator, or fails `GET /devices`. What is posted
/// and read as messages passes through unchanged.
final class LyingServer: ChatServerAPI, @unchecked Sendable {
    private let base: any ChatServerAPI
    private let lock = NSLock()
    private var flipped: Set<String> = []
    private var creators: [String: String] = [:]
    private var failedDeviceListings = 0

    init(_ base: any ChatServerAPI) { self.base = base }

    /// From now on, `channelID` is listed with the other kind (`is_dm` flipped, and the
    /// encryption type that goes with it).
    func flipKind(of channelID: String) { lock.withLock { _ = flipped.insert(channelID.lowercased()) } }
    /// From now on, `channelID` is listed as created by `userID`.
    func claimCreator(of channelID: String, is userID: String) { lock.withLock { creators[channelID.lowercased()] = userID } }
    /// The next `count` `GET /devices` fail.
    func failDeviceListings(_ count: Int) { lock.withLock { failedDeviceListings = count } }

    private func lie(_ channel: ServerChannel) -> ServerChannel {
        var channel = channel
        lock.withLock {
            if flipped.contains(channel.id.lowercased()) {
                channel.isDM.toggle()
                channel.encryptionType = channel.isDM ? "x3dh" : "sender_keys"
            }
            if let creator = creators[channel.id.lowercased()] { channel.createdBy = creator }
        }
        return channel
    }

    func channels() async throws -> [ServerChannel] { try await base.channels().map(lie) }
    func channel(id: String) async throws -> ServerChannel { lie(try await base.channel(id: id)) }
    func openDirectMessage(userID: String) async throws -> ServerChannel { lie(try await base.openDirectMessage(userID: userID)) }
    func devices() async throws -> [ServerDevice] {
        let fail = lock.withLock { () -> Bool in
            defer { failedDeviceListings = max(0, failedDeviceListings - 1) }
            return failedDeviceListings > 0
        }
        if fail { throw ServerError.transport("connection reset") }
        return try await base.devices()
    }

    func messages(channelID: String, before: ServerTimestamp?, limit: Int) async throws -> MessagePage {
        try await base.messages(channelID: channelID, before: before, limit: limit)
    }
    func sendMessage(channelID: String, _ message: OutgoingMessage) async throws -> ServerMessage {
        try await base.sendMessage(channelID: channelID, message)
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
    func renameChannel(id: String, name: String) async throws -> ServerChannel { try await base.renameChannel(id: id, name: name) }
    func deleteChannel(id: String) async throws { try await base.deleteChannel(id: id) }
    func joinChannel(id: String) async throws { try await base.joinChannel(id: id) }
    func leaveChannel(id: String) async throws { try await base.leaveChannel(id: id) }
    func members(channelID: String) async throws -> [ChannelMember] { try await base.members(channelID: channelID) }
    func addMember(channelID: String, userID: String) async throws { try await base.addMember(channelID: channelID, userID: userID) }
    func editMessage(id: String, content: String) async throws -> ServerMessage { try await base.editMessage(id: id, content: content) }
    func deleteMessage(id: String) async throws { try await base.deleteMessage(id: id) }
    func deleteDevice(id: String) async throws { try await base.deleteDevice(id: id) }
}
