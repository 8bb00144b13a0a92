import E2EEMessaging

extension HTTPChatServer {
    private static func seg(_ value: String) -> String { HTTPRequester.pathSegment(value) }
    private static func seg<Kind>(_ id: Identifier<Kind>) -> String { HTTPRequester.pathSegment(id.rawValue) }

    /// `POST /auth/register`; the session adopts (and persists) the tokens.
    /// - Throws: `ServerError` (409 taken, 403 closed, 422 invalid), the key store's errors.
    public func register(username: String, password: String, deviceName: String) async throws -> TokenResponse {
        let body = ["username": username, "password": password, "device_name": deviceName]
        let tokens = try Self.decode(TokenResponse.self, try await publicCall(.POST, "/auth/register", body: body))
        try await session.adopt(tokens)
        return tokens
    }

    /// `POST /auth/login`; the session adopts (and persists) the tokens.
    /// - Throws: `ServerError` (401 bad credentials, 403 banned), the key store's errors.
    public func login(username: String, password: String, deviceName: String) async throws -> TokenResponse {
        let body = ["username": username, "password": password, "device_name": deviceName]
        let tokens = try Self.decode(TokenResponse.self, try await publicCall(.POST, "/auth/login", body: body))
        try await session.adopt(tokens)
        return tokens
    }

    /// `POST /auth/logout`; the tokens are wiped locally even when the call fails.
    /// - Throws: `ServerError` from the call.
    public func logout() async throws {
        guard let refresh = await session.currentRefreshToken() else { return }
        do {
            _ = try await publicCall(.POST, "/auth/logout", body: ["refresh_token": refresh], repeatable: true)
        } catch {
            await session.wipe()
            throw error
        }
        await session.wipe()
    }

    /// `POST /auth/logout-all`; tokens wiped locally.
    /// - Throws: `ServerError`.
    public func logoutAll() async throws {
        _ = try await call(.POST, "/auth/logout-all", repeatable: true)
        await session.wipe()
    }

    /// `POST /auth/ws-ticket`.
    /// - Throws: `ServerError`.
    public func webSocketTicket() async throws -> String {
        try await call([String: String].self, .POST, "/auth/ws-ticket", repeatable: true)["ticket"] ?? { throw ServerError.decoding("ticket missing") }()
    }

    /// `GET /users/me`. - Throws: `ServerError`.
    public func currentUser() async throws -> ServerUser { try await call(ServerUser.self, .GET, "/users/me") }
    /// `GET /users/{id}`. - Throws: `ServerError` (404).
    public func user(id: UserID) async throws -> ServerUser { try await call(ServerUser.self, .GET, "/users/" + Self.seg(id)) }
    /// `GET /users/search`. - Throws: `ServerError`.
    public func searchUsers(query: String) async throws -> [ServerUser] {
        try await call([ServerUser].self, .GET, "/users/search?q=" + HTTPRequester.queryEncoded(query))
    }

    /// `GET /users/lookup` (`identity` URL-encoded). - Throws: `ServerError` (404 unknown).
    public func lookupUser(identity: String) async throws -> ServerUser {
        try await call(ServerUser.self, .GET, "/users/lookup?identity=" + HTTPRequester.queryEncoded(identity))
    }

    /// `POST /keys/upload`. - Throws: `ServerError` (404 not the caller's device; 500 for fields over 255 chars).
    public func uploadKeys(_ upload: KeyBundleUpload) async throws { _ = try await call(.POST, "/keys/upload", body: upload, repeatable: true) }
    /// `POST /keys/one-time`. - Throws: `ServerError` (404 without a bundle).
    public func addOneTimePreKeys(deviceID: DeviceID, keys: [String]) async throws -> Int {
        struct Body: Encodable, Sendable { let device_id: String; let one_time_pre_keys: [String] }
        struct Answer: Decodable { let count: Int }
        return try await call(Answer.self, .POST, "/keys/one-time", body: Body(device_id: deviceID.rawValue, one_time_pre_keys: keys)).count
    }
    /// `GET /keys/{user_id}/bundles`. - Throws: `ServerError`.
    public func bundles(userID: UserID) async throws -> [DeviceBundle] {
        try await call([DeviceBundle].self, .GET, "/keys/\(Self.seg(userID))/bundles")
    }
    /// `GET /keys/{device_id}/bundle`. - Throws: `ServerError` (404).
    public func bundle(deviceID: DeviceID) async throws -> DeviceBundle {
        try await call(DeviceBundle.self, .GET, "/keys/\(Self.seg(deviceID))/bundle")
    }
    /// `POST /keys/channels/{id}/sender-keys`. - Throws: `ServerError`.
    public func uploadSenderKey(channelID: ChannelID, _ entry: SenderKeyEntry) async throws {
        struct Body: Encodable, Sendable { let device_id: String; let sender_key_public: String; let chain_key: String }
        _ = try await call(.POST, "/keys/channels/\(Self.seg(channelID))/sender-keys",
                           body: Body(device_id: entry.deviceID.rawValue, sender_key_public: entry.senderKeyPublic, chain_key: entry.chainKey),
                           repeatable: true)
    }
    /// `GET /keys/channels/{id}/sender-keys`. - Throws: `ServerError`.
    public func senderKeys(channelID: ChannelID) async throws -> [SenderKeyEntry] {
        try await call([SenderKeyEntry].self, .GET, "/keys/channels/\(Self.seg(channelID))/sender-keys")
    }

    /// `POST /channels`. - Throws: `ServerError`.
    public func createChannel(name: String) async throws -> ServerChannel {
        try await call(ServerChannel.self, .POST, "/channels", body: ["name": name])
    }
    /// `POST /channels` of a link channel (`is_dm` false, `x3dh`). - Throws: `ServerError`.
    public func createLinkChannel(name: String) async throws -> ServerChannel {
        struct Body: Encodable, Sendable { let name: String; let is_dm: Bool; let encryption_type: String }
        return try await call(ServerChannel.self, .POST, "/channels", body: Body(name: name, is_dm: false, encryption_type: "x3dh"))
    }
    /// `GET /channels`. - Throws: `ServerError`.
    public func channels() async throws -> [ServerChannel] { try await call([ServerChannel].self, .GET, "/channels") }
    /// `GET /channels/{id}`. - Throws: `ServerError` (403 non-member, 404).
    public func channel(id: ChannelID) async throws -> ServerChannel { try await call(ServerChannel.self, .GET, "/channels/" + Self.seg(id)) }
    /// `PATCH /channels/{id}`. - Throws: `ServerError`.
    public func renameChannel(id: ChannelID, name: String) async throws -> ServerChannel {
        try await call(ServerChannel.self, .PATCH, "/channels/" + Self.seg(id), body: ["name": name])
    }
    /// `DELETE /channels/{id}`. - Throws: `ServerError` (403 not owner).
    public func deleteChannel(id: ChannelID) async throws { _ = try await call(.DELETE, "/channels/" + Self.seg(id)) }
    /// `POST /channels/{id}/join`. - Throws: `ServerError`.
    public func joinChannel(id: ChannelID) async throws { _ = try await call(.POST, "/channels/\(Self.seg(id))/join", repeatable: true) }
    /// `POST /channels/{id}/leave`. - Throws: `ServerError`.
    public func leaveChannel(id: ChannelID) async throws { _ = try await call(.POST, "/channels/\(Self.seg(id))/leave", repeatable: true) }
    /// `GET /channels/{id}/members`. - Throws: `ServerError`.
    public func members(channelID: ChannelID) async throws -> [ChannelMember] {
        try await call([ChannelMember].self, .GET, "/channels/\(Self.seg(channelID))/members")
    }
    /// `POST /channels/{id}/members`. - Throws: `ServerError` (409 already member, 400 DM).
    public func addMember(channelID: ChannelID, userID: UserID) async throws {
        _ = try await call(.POST, "/channels/\(Self.seg(channelID))/members", body: ["user_id": userID])
    }
    /// `POST /channels/dm`. - Throws: `ServerError` (500 for a DM with oneself).
    public func openDirectMessage(userID: UserID) async throws -> ServerChannel {
        try await call(ServerChannel.self, .POST, "/channels/dm", body: ["user_id": userID], repeatable: true)
    }

    /// `GET /channels/{id}/messages`; `before` URL-encoded, `limit` clamped to 1…100 (never 0).
    /// - Throws: `ServerError` (403 non-member, 422).
    public func messages(channelID: ChannelID, before: ServerTimestamp?, limit: Int) async throws -> MessagePage {
        var path = "/channels/\(Self.seg(channelID))/messages?limit=\(min(max(limit, 1), 100))"
        if let before { path += "&before=" + HTTPRequester.queryEncoded(before.restText) }
        return try ServerJSON.decodePage(try await call(.GET, path, body: nil as Empty?, repeatable: nil))
    }
    /// `POST /channels/{id}/messages`. - Throws: `ServerError`.
    public func sendMessage(channelID: ChannelID, _ message: OutgoingMessage) async throws -> ServerMessage {
        try await call(ServerMessage.self, .POST, "/channels/\(Self.seg(channelID))/messages", body: message)
    }
    /// `PATCH /channels/messages/{id}`. - Throws: `ServerError` (403/404).
    public func editMessage(id: MessageID, content: String) async throws -> ServerMessage {
        try await call(ServerMessage.self, .PATCH, "/channels/messages/" + Self.seg(id), body: ["content": content])
    }
    /// `DELETE /channels/messages/{id}`. - Throws: `ServerError`.
    public func deleteMessage(id: MessageID) async throws { _ = try await call(.DELETE, "/channels/messages/" + Self.seg(id)) }
}
