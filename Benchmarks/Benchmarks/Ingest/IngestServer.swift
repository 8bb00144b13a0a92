@_spi(Benchmarks) import E2EEMessaging
import Foundation

/// The server as the receive path meets it in the benchmark: it lists the sending devices'
/// bundles (`GET /keys/{user_id}/bundles`, read by the account's directory for each sender's
/// first prekey message; each bundle's signed prekey is real, so the directory's check of it
/// passes), accepts key uploads (the account republishes its bundle after one-time prekeys are
/// consumed), lists the workload's four channels and the groups' members and opens the two DMs
/// (what the app does before the sample, ``ReceivingDevice``), and answers every other call with
/// a transport error: the messages themselves are handed to the account as bytes
/// (``IngestRun``), never fetched.
struct IngestServer: ChatServerAPI {
    /// The bundles per user id.
    let bundles: [String: [DeviceBundle]]
    /// The channels, as `GET /channels` lists them.
    let listedChannels: [ServerChannel]
    /// The members per channel id (the receiver included).
    let listedMembers: [String: [ChannelMember]]
    /// The DM per other user id.
    let directMessages: [String: ServerChannel]

    /// The server of `traffic`, whose channels `receiver` belongs to.
    /// - Throws: `DecodingError` when a listed value does not decode (the values are made here).
    init(traffic: Traffic, receiver: UserID) throws {
        bundles = traffic.bundles
        var channels: [ListedChannel] = []
        var members: [String: [ListedMember]] = [:]
        var directMessages: [String: String] = [:]
        for (index, channel) in traffic.channels.enumerated() {
            let isDM = channel.encryption == .x3dh
            channels.append(ListedChannel(id: channel.id.rawValue, name: isDM ? nil : "group \(index)", isDM: isDM,
                                          encryptionType: channel.encryption.rawValue, createdAt: Self.created))
            members[channel.id.rawValue] = ([receiver.rawValue] + traffic.members[index]).map {
                ListedMember(userID: $0, username: "user-\($0.prefix(8))", role: "member", joinedAt: Self.created)
            }
            if isDM, let other = traffic.members[index].first { directMessages[other] = channel.id.rawValue }
        }
        let decoder = JSONDecoder()
        let encoder = JSONEncoder()
        listedChannels = try decoder.decode([ServerChannel].self, from: encoder.encode(channels))
        listedMembers = try members.mapValues { try decoder.decode([ChannelMember].self, from: encoder.encode($0)) }
        let byID = Dictionary(uniqueKeysWithValues: listedChannels.map { ($0.id.rawValue, $0) })
        self.directMessages = directMessages.compactMapValues { byID[$0] }
    }

    /// When the channels and memberships were made (before every row of the workload).
    private static let created = ServerTimestamp(microseconds: 1_700_000_000_000_000)

    private var unanswered: ServerError { .transport("not answered by the ingest benchmark's server") }

    func bundles(userID: UserID) async throws -> [DeviceBundle] { bundles[userID.rawValue] ?? [] }
    func uploadKeys(_ upload: KeyBundleUpload) async throws {}
    func addOneTimePreKeys(deviceID: DeviceID, keys: [String]) async throws -> Int { keys.count }
    func channels() async throws -> [ServerChannel] { listedChannels }
    func channel(id: ChannelID) async throws -> ServerChannel {
        guard let channel = listedChannels.first(where: { $0.id == id }) else { throw unanswered }
        return channel
    }
    func members(channelID: ChannelID) async throws -> [ChannelMember] { listedMembers[channelID.rawValue] ?? [] }
    func openDirectMessage(userID: UserID) async throws -> ServerChannel {
        guard let channel = directMessages[userID.rawValue] else { throw unanswered }
        return channel
    }

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
    func createLinkChannel(name: String) async throws -> ServerChannel { throw unanswered }
    func renameChannel(id: ChannelID, name: String) async throws -> ServerChannel { throw unanswered }
    func deleteChannel(id: ChannelID) async throws { throw unanswered }
    func joinChannel(id: ChannelID) async throws { throw unanswered }
    func leaveChannel(id: ChannelID) async throws { throw unanswered }
    func addMember(channelID: ChannelID, userID: UserID) async throws { throw unanswered }
    func messages(channelID: ChannelID, before: ServerTimestamp?, limit: Int) async throws -> MessagePage { throw unanswered }
    func sendMessage(channelID: ChannelID, _ message: OutgoingMessage) async throws -> ServerMessage { throw unanswered }
    func editMessage(id: MessageID, content: String) async throws -> ServerMessage { throw unanswered }
    func deleteMessage(id: MessageID) async throws { throw unanswered }
    func checkHealth() async throws { throw unanswered }
}

/// A channel as the server writes it in JSON.
private struct ListedChannel: Encodable {
    let id: String
    let name: String?
    let isDM: Bool
    let isFederated = false
    let encryptionType: String
    let createdAt: ServerTimestamp

    enum CodingKeys: String, CodingKey {
        case id, name, isDM = "is_dm", isFederated = "is_federated", encryptionType = "encryption_type", createdAt = "created_at"
    }
}

/// A channel member as the server writes it in JSON.
private struct ListedMember: Encodable {
    let userID: String
    let username: String
    let role: String
    let joinedAt: ServerTimestamp

    enum CodingKeys: String, CodingKey {
        case userID = "user_id", username, role, joinedAt = "joined_at"
    }
}
