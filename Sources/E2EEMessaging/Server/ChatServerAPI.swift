/// The REST API of the chat server (docs/spec/server-api.md), one async method per call, as the
/// messaging layer sees it. Implementations handle authentication themselves: auth calls
/// adopt the tokens they return, and every other call is made with the current session.
///
/// Every method throws ``ServerError``: the status of the answer mapped to its case,
/// ``ServerError/transport(_:)`` when no answer came, ``ServerError/decoding(_:)`` for a body
/// that does not decode, ``ServerError/sessionEnded`` when a 401 could not be cured by one
/// refresh (tokens are then wiped), ``ServerError/notLoggedIn`` without tokens.
public protocol ChatServerAPI: Sendable {
    /// `POST /auth/register`: a new account and device; the session adopts the tokens.
    func register(username: String, password: String, deviceName: String) async throws -> TokenResponse
    /// `POST /auth/login`: a new device; the session adopts the tokens.
    func login(username: String, password: String, deviceName: String) async throws -> TokenResponse
    /// `POST /auth/logout` with the held refresh token; tokens are wiped locally either way.
    func logout() async throws
    /// `POST /auth/logout-all`: every session of the user ends; tokens are wiped locally.
    func logoutAll() async throws
    /// `POST /auth/ws-ticket`: a single-use WebSocket ticket, valid 30 s.
    func webSocketTicket() async throws -> String

    /// `GET /devices`: the account's devices.
    func devices() async throws -> [ServerDevice]
    /// `DELETE /devices/{id}`: the device's key bundle and sessions go with it.
    func deleteDevice(id: DeviceID) async throws

    /// `GET /users/me`.
    func currentUser() async throws -> ServerUser
    /// `GET /users/{id}`.
    func user(id: UserID) async throws -> ServerUser
    /// `GET /users/search?q=` (at most 20).
    func searchUsers(query: String) async throws -> [ServerUser]
    /// `GET /users/lookup?identity=user@domain`.
    func lookupUser(identity: String) async throws -> ServerUser

    /// `POST /keys/upload`: replaces the device's whole bundle.
    func uploadKeys(_ upload: KeyBundleUpload) async throws
    /// `POST /keys/one-time`: appends; returns the server's total.
    func addOneTimePreKeys(deviceID: DeviceID, keys: [String]) async throws -> Int
    /// `GET /keys/{user_id}/bundles`, one per device with a bundle.
    func bundles(userID: UserID) async throws -> [DeviceBundle]
    /// `GET /keys/{device_id}/bundle`.
    func bundle(deviceID: DeviceID) async throws -> DeviceBundle
    /// `POST /keys/channels/{id}/sender-keys` (public data only).
    func uploadSenderKey(channelID: ChannelID, _ entry: SenderKeyEntry) async throws
    /// `GET /keys/channels/{id}/sender-keys`.
    func senderKeys(channelID: ChannelID) async throws -> [SenderKeyEntry]

    /// `POST /channels`: a group the caller owns (its socket is not subscribed).
    func createChannel(name: String) async throws -> ServerChannel
    /// `POST /channels {name, is_dm: false, encryption_type: "x3dh"}`: a link channel the
    /// caller owns (docs/spec/protocol.md §10.22; its socket is not subscribed).
    func createLinkChannel(name: String) async throws -> ServerChannel
    /// `GET /channels`: the caller's channels, no order.
    func channels() async throws -> [ServerChannel]
    /// `GET /channels/{id}`.
    func channel(id: ChannelID) async throws -> ServerChannel
    /// `PATCH /channels/{id}`.
    func renameChannel(id: ChannelID, name: String) async throws -> ServerChannel
    /// `DELETE /channels/{id}` (owner only).
    func deleteChannel(id: ChannelID) async throws
    /// `POST /channels/{id}/join`.
    func joinChannel(id: ChannelID) async throws
    /// `POST /channels/{id}/leave`.
    func leaveChannel(id: ChannelID) async throws
    /// `GET /channels/{id}/members`: the only source of membership.
    func members(channelID: ChannelID) async throws -> [ChannelMember]
    /// `POST /channels/{id}/members`.
    func addMember(channelID: ChannelID, userID: UserID) async throws
    /// `POST /channels/dm`: the DM with `userID` (existing or new).
    func openDirectMessage(userID: UserID) async throws -> ServerChannel

    /// `GET /channels/{id}/messages?before=&limit=`: one page, oldest → newest; `before` is
    /// strictly older-than (see ``MessageHistoryPager`` for tie-safe paging). `limit` 1…100.
    func messages(channelID: ChannelID, before: ServerTimestamp?, limit: Int) async throws -> MessagePage
    /// `POST /channels/{id}/messages`.
    func sendMessage(channelID: ChannelID, _ message: OutgoingMessage) async throws -> ServerMessage
    /// `PATCH /channels/messages/{id}`.
    func editMessage(id: MessageID, content: String) async throws -> ServerMessage
    /// `DELETE /channels/messages/{id}`.
    func deleteMessage(id: MessageID) async throws
    /// `GET /health` (outside `/api/v1`, without authentication; the reference server exempts
    /// it from the rate limit): answers when the server is up. The connection supervisor uses
    /// it to notice a server's return between reconnect attempts.
    /// - Throws: ``ServerError/transport(_:)`` when no answer came, the status's case otherwise.
    func checkHealth() async throws
}

extension ChatServerAPI {
    /// An API without a health check: every check is ``ServerError/notFound(detail:)``, so the
    /// supervisor paces its reconnect attempts by the backoff alone.
    /// - Throws: always ``ServerError/notFound(detail:)``.
    public func checkHealth() async throws {
        throw ServerError.notFound(detail: "no health check")
    }
}
