import GRDB
import Hummingbird
import HummingbirdWebSocket

/// `GET /ws?ticket=…`: the ticket is checked (and spent) during the handshake; a bad, expired or
/// reused ticket fails the HTTP handshake with 403 and an empty body (docs/spec/server-api.md §14; see
/// ``HandshakeRefusalWriter``). Faults and
/// the rate limit are applied here too, since a handshake does not pass the HTTP middleware.
struct WebSocketRoutes {
    let state: ServerState

    func register(webSocketRouter: Router<DevRequestContext>, httpRouter: Router<DevRequestContext>) {
        webSocketRouter.ws("ws") { request, context in
            try await shouldUpgrade(request, context)
        } onUpgrade: { inbound, outbound, context in
            let channel = context.requestContext.channel
            guard let socket = await state.pendingSockets.take(for: channel) else { return }
            await SocketSession(state: state, socket: socket, outbound: outbound, channel: channel).run(inbound: inbound)
        }
        // A plain GET (no upgrade headers) reaches the HTTP router.
        httpRouter.get("ws") { _, _ -> Response in
            Response(status: .forbidden, headers: [.contentLength: "0"])
        }
    }

    private func shouldUpgrade(_ request: Request, _ context: DevRequestContext) async throws -> RouterShouldUpgrade {
        if let status = await state.faults.refuseUpgradesStatus {
            let retryAfter = await state.faults.refuseUpgradesRetryAfter.map { [("Retry-After", String($0))] } ?? []
            await context.refuseHandshake(status: status, detail: "WebSocket upgrades refused", headers: retryAfter)
            return .dontUpgrade
        }
        if let failure = await state.faults.takeFailure() {
            await context.refuseHandshake(status: failure.status, detail: "Injected failure")
            return .dontUpgrade
        }
        let ip = context.remoteAddress?.ipAddress ?? "unknown"
        guard await state.rateLimiter.admit(ip: ip, now: state.now) else {
            let retryAfter = state.configuration.rateLimit?.retryAfterHeader ?? "10"
            await context.refuseHandshake(status: 429, detail: "Rate limit exceeded", headers: [("Retry-After", retryAfter)])
            return .dontUpgrade
        }
        let digest = Credentials.digest(request.formQuery["ticket"] ?? "")
        let now = state.now
        let owner = try await state.database.write { db -> (userID: String, deviceID: String?)? in
            try db.execute(sql: "UPDATE ws_tickets SET used = 1 WHERE ticket_hash = ? AND used = 0 AND expires_at > ?", arguments: [digest, now])
            guard db.changesCount == 1,
                  let row = try Row.fetchOne(db, sql: "SELECT user_id, device_id FROM ws_tickets WHERE ticket_hash = ?", arguments: [digest])
            else { return nil }
            return (row["user_id"], row["device_id"])
        }
        guard let (userID, deviceID) = owner else {
            await context.refuseHandshake(status: 403, detail: nil)
            return .dontUpgrade
        }
        if !state.quirks.lateSubscribeAfterConnect {
            await state.hub.subscribe(userID: userID, channelIDs: try await state.channelIDs(ofUser: userID))
        }
        // Registered now, so that events published as soon as the 101 is out are queued.
        await state.pendingSockets.open(for: context.channel, userID: userID, deviceID: deviceID, hub: state.hub)
        await context.acceptHandshake()
        return .upgrade([:])
    }
}

extension ServerState {
    /// The channels `userID` is a member of now.
    func channelIDs(ofUser userID: String) async throws -> [String] {
        try await database.read { db in
            try String.fetchAll(db, sql: "SELECT channel_id FROM members WHERE user_id = ?", arguments: [userID])
        }
    }
}
