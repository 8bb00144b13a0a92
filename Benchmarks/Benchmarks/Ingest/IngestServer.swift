@_spi(Benchmarks) import E2EEMessaging

/// The server as the receive path meets it in the benchmark: it lists the sending devices'
/// bundles (`GET /keys/{user_id}/bundles`, read by the account's directory for each sender's
/// first prekey message; each bundle's signed prekey is real, so the directory's check of it
/// passes), accepts key uploads (the account republishes its bundle after one-time prekeys are
/// consumed) and answers every other call with a transport error: the messages themselves are
/// handed to the account as bytes (``IngestRun``), never fetched.
struct IngestServer: ChatServerAPI {
    /// The bundles per user id.
    let bundles: [String: [DeviceBundle]]

    private var unanswered: ServerError { .transport("not answered by the ingest benchmark's server") }

    func bundles(userID: UserID) async throws -> [DeviceBundle] { bundles[userID.rawValue] ?? [] }
    func uploadKeys(_ upload: KeyBundleUpload) async throws {}
    func addOneTimePreKeys(deviceID: DeviceID, keys: [String]) async throws -> Int { keys.count }

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
    func bundle(deviceID: DeviceID) async throws -> DeviceBundle { throw unanswered }
    func uploadSenderKey(channelID: ChannelID, _ entry: SenderKeyEntry) async throws { throw unanswered }
    func senderKeys(channelID: ChannelID) async throws -> [SenderKeyEntry] { throw unanswered }
    func createChannel(name: String) async throws -> ServerChannel { throw unanswered }
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
    func checkHealth() async throws { throw unanswered }
}
