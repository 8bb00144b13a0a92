import E2EEMessaging

/// A `ChatServerAPI` fake that answers only the calls its test uses: every other call throws a
/// 501, so a test that reaches one it did not expect fails loudly instead of getting made-up data.
/// A fake conforms to this and implements only what it answers.
protocol UnansweredServerCalls: ChatServerAPI {}

extension UnansweredServerCalls {
    private var unanswered: ServerError { .unexpectedStatus(501, body: "not answered by this fake") }

    func register(username: String, password: String, deviceName: String) async throws -> TokenResponse { throw unanswered }
    func login(username: String, password: String, deviceName: String) async throws -> TokenResponse { throw unanswered }
    func logout() async throws { throw unanswered }
    func logoutAll() async throws { throw unanswered }
    func webSocketTicket() async throws -> String { throw unanswered }
    func devices() async throws -> [ServerDevice] { throw unanswered }
    func deleteDevice(id: DeviceID) async throws { throw unanswered }
    func currentUser() async throws -> ServerUser { throw unanswered }
    func user(id: UserID) async throws -> ServerUser { throw unanswered }
    func searchUsers(query: String) async throws -> [ServerUser] { throw unanswered }
    func lookupUser(identity: String) async throws -> ServerUser { throw unanswered }
    func uploadKeys(_ upload: KeyBundleUpload) async throws { throw unanswered }
    func addOneTimePreKeys(deviceID: DeviceID, keys: [String]) async throws -> Int { throw unanswered }
    func bundles(userID: UserID) async throws -> [DeviceBundle] { throw unanswered }
    func bundle(deviceID: DeviceID) async throws -> DeviceBundle { throw unanswered }
    func uploadSenderKey(channelID: ChannelID, _ entry: SenderKeyEntry) async throws { throw unanswered }
    func senderKeys(channelID: ChannelID) async throws -> [SenderKeyEntry] { throw unanswered }
    func createChannel(name: String) async throws -> ServerChannel { throw unanswered }
    func createLinkChannel(name: String) async throws -> ServerChannel { throw unanswered }
    func channels() async throws -> [ServerChannel] { throw unanswered }
    func channel(id: ChannelID) async throws -> ServerChannel { throw unanswered }
    func renameChannel(id: ChannelID, name: String) async throws -> ServerChannel { throw unanswered }
    func deleteChannel(id: ChannelID) async throws { throw unanswered }
    func joinChannel(id: ChannelID) async throws { throw unanswered }
    func leaveChannel(id: ChannelID) async throws { throw unanswered }
    func members(channelID: ChannelID) async throws -> [ChannelMember] { throw unanswered }
    func addMember(channelID: ChannelID, userID: UserID) async throws { throw unanswered }
    func openDirectMessage(userID: UserID) async throws -> ServerChannel { throw unanswered }
    func messages(channelID: ChannelID, before: ServerTimestamp?, limit: Int) async throws -> MessagePage { throw unanswered }
    func sendMessage(channelID: ChannelID, _ message: OutgoingMessage) async throws -> ServerMessage { throw unanswered }
    func editMessage(id: MessageID, content: String) async throws -> ServerMessage { throw unanswered }
    func deleteMessage(id: MessageID) async throws { throw unanswered }
}
