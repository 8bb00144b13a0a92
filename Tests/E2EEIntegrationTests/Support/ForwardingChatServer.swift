import E2EEMessaging

/// A ``ChatServerAPI`` that hands every call to ``base``, the real client: a test proxy
/// conforms and implements only the calls it changes (``LyingServer``, ``UnreliableServer``).
protocol ForwardingChatServer: ChatServerAPI {
    /// The client every call not implemented by the proxy goes to.
    var base: any ChatServerAPI { get }
}

extension ForwardingChatServer {
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
    func user(id: UserID) async throws -> ServerUser { try await base.user(id: id) }
    func searchUsers(query: String) async throws -> [ServerUser] { try await base.searchUsers(query: query) }
    func lookupUser(identity: String) async throws -> ServerUser { try await base.lookupUser(identity: identity) }
    func uploadKeys(_ upload: KeyBundleUpload) async throws { try await base.uploadKeys(upload) }
    func addOneTimePreKeys(deviceID: DeviceID, keys: [String]) async throws -> Int { try await base.addOneTimePreKeys(deviceID: deviceID, keys: keys) }
    func bundles(userID: UserID) async throws -> [DeviceBundle] { try await base.bundles(userID: userID) }
    func bundle(deviceID: DeviceID) async throws -> DeviceBundle { try await base.bundle(deviceID: deviceID) }
    func uploadSenderKey(channelID: ChannelID, _ entry: SenderKeyEntry) async throws { try await base.uploadSenderKey(channelID: channelID, entry) }
    func senderKeys(channelID: ChannelID) async throws -> [SenderKeyEntry] { try await base.senderKeys(channelID: channelID) }
    func createChannel(name: String) async throws -> ServerChannel { try await base.createChannel(name: name) }
    func createLinkChannel(name: String) async throws -> ServerChannel { try await base.createLinkChannel(name: name) }
    func channels() async throws -> [ServerChannel] { try await base.channels() }
    func channel(id: ChannelID) async throws -> ServerChannel { try await base.channel(id: id) }
    func renameChannel(id: ChannelID, name: String) async throws -> ServerChannel { try await base.renameChannel(id: id, name: name) }
    func deleteChannel(id: ChannelID) async throws { try await base.deleteChannel(id: id) }
    func joinChannel(id: ChannelID) async throws { try await base.joinChannel(id: id) }
    func leaveChannel(id: ChannelID) async throws { try await base.leaveChannel(id: id) }
    func members(channelID: ChannelID) async throws -> [ChannelMember] { try await base.members(channelID: channelID) }
    func addMember(channelID: ChannelID, userID: UserID) async throws { try await base.addMember(channelID: channelID, userID: userID) }
    func openDirectMessage(userID: UserID) async throws -> ServerChannel { try await base.openDirectMessage(userID: userID) }
    func editMessage(id: MessageID, content: String) async throws -> ServerMessage { try await base.editMessage(id: id, content: content) }
    func deleteMessage(id: MessageID) async throws { try await base.deleteMessage(id: id) }
    func devices() async throws -> [ServerDevice] { try await base.devices() }
    func deleteDevice(id: DeviceID) async throws { try await base.deleteDevice(id: id) }
    func messages(channelID: ChannelID, before: ServerTimestamp?, limit: Int) async throws -> MessagePage {
        try await base.messages(channelID: channelID, before: before, limit: limit)
    }
    func sendMessage(channelID: ChannelID, _ message: OutgoingMessage) async throws -> ServerMessage {
        try await base.sendMessage(channelID: channelID, message)
    }
    func checkHealth() async throws { try await base.checkHealth() }
}
