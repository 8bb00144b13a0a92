import Foundation
import GRDB
import Hummingbird

/// `/api/v1/auth`: register, login, refresh (rotating), logout, logout-all, ws-ticket.
struct AuthRoutes {
    let state: ServerState

    func register(on router: Router<DevRequestContext>) {
        let group = router.group("api/v1/auth")
        group.post("register") { request, context in try await register(request, context) }
        group.post("login") { request, context in try await login(request, context) }
        group.post("refresh") { request, context in try await refresh(request, context) }
        group.post("logout") { request, context in try await logout(request, context) }
        group.post("logout-all") { request, _ in try await logoutAll(request) }
        group.post("ws-ticket") { request, _ in try await wsTicket(request) }
    }

    private func register(_ request: Request, _ context: DevRequestContext) async throws -> Response {
        let body = BodyReader(body: try await request.jsonObject(context: context))
        let username = try body.string("username")
        let password = try body.string("password")
        let email = try body.optionalString("email")
        let displayName = try body.optionalString("display_name")
        let deviceName = try body.optionalString("device_name") ?? "default"
        guard (3...64).contains(username.count),
              username.unicodeScalars.allSatisfy({ Self.usernameCharacters.contains($0) })
        else {
            throw APIError.validation(["body", "username"], "String should match pattern '^[A-Za-z0-9_-]{3,64}$'", type: "string_pattern_mismatch")
        }
        guard (8...128).contains(password.count) else {
            throw APIError.validation(["body", "password"], "String should have between 8 and 128 characters", type: "string_too_short")
        }
        guard state.configuration.registrationOpen else { throw APIError.detail(.forbidden, "Registration is closed") }
        let salt = Credentials.newSalt()
        let hash = Credentials.passwordHash(password, salt: salt)
        let userID = state.newID()
        let deviceID = state.newID()
        let now = state.now
        let tokens = try await state.database.write { db -> JSONValue? in
            if try Bool.fetchOne(db, sql: "SELECT 1 FROM users WHERE username = ?", arguments: [username]) != nil { return nil }
            try db.execute(sql: """
                INSERT INTO users (id, username, password_hash, password_salt, email, display_name, created_at)
                VALUES (?, ?, ?, ?, ?, ?, ?)
                """, arguments: [userID, username, hash, salt, email, displayName, now])
            try db.execute(sql: "INSERT INTO devices (id, user_id, name, created_at) VALUES (?, ?, ?, ?)",
                           arguments: [deviceID, userID, deviceName, now])
            return try state.issueTokens(db, userID: userID, deviceID: deviceID)
        }
        guard let tokens else { throw APIError.detail(.conflict, "Username already taken") }
        return .json(tokens, status: .created)
    }

    private static let usernameCharacters = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-".unicodeScalars)

    private func login(_ request: Request, _ context: DevRequestContext) async throws -> Response {
        let body = BodyReader(body: try await request.jsonObject(context: context))
        let username = try body.string("username")
        let password = try body.string("password")
        let deviceName = try body.optionalString("device_name") ?? "default"
        let user = try await state.database.read { db -> (id: String, hash: Data, salt: Data, banned: Bool)? in
            guard let row = try Row.fetchOne(db, sql: "SELECT id, password_hash, password_salt, banned FROM users WHERE username = ?", arguments: [username])
            else { return nil }
            return (row["id"], row["password_hash"], row["password_salt"], row["banned"])
        }
        guard let user, Credentials.verify(password, salt: user.salt, hash: user.hash) else {
            throw APIError.detail(.unauthorized, "Incorrect username or password")
        }
        if user.banned { throw APIError.detail(.forbidden, "User is banned") }
        let userID = user.id
        let deviceID = state.newID()
        let now = state.now
        let tokens = try await state.database.write { db in
            try db.execute(sql: "INSERT INTO devices (id, user_id, name, created_at) VALUES (?, ?, ?, ?)",
                           arguments: [deviceID, userID, deviceName, now])
            return try state.issueTokens(db, userID: userID, deviceID: deviceID)
        }
        return .json(tokens)
    }

    private enum RefreshOutcome {
        case tokens(JSONValue)
        case refused
        case notCommittedYet
    }

    private func refresh(_ request: Request, _ context: DevRequestContext) async throws -> Response {
        let body = BodyReader(body: try await request.jsonObject(context: context))
        let digest = Credentials.digest(try body.string("refresh_token"))
        let now = state.now
        let quirks = state.quirks
        let lifetime = state.configuration.refreshTokenLifetime.microseconds
        let outcome = try await state.database.write { db -> RefreshOutcome in
            guard let row = try Row.fetchOne(db, sql: """
                SELECT user_id, device_id, expires_at, issued_by_refresh FROM refresh_tokens WHERE token_hash = ?
                """, arguments: [digest])
            else { return .refused }
            // A rotated token issued `delay` ago or less is "not committed yet": refused, kept.
            let issuedAt = (row["expires_at"] as Int64) - lifetime
            if quirks.refreshTokenCommitLag, row["issued_by_refresh"] as Bool,
               now < issuedAt + quirks.refreshTokenCommitDelay.microseconds {
                return .notCommittedYet
            }
            try db.execute(sql: "DELETE FROM refresh_tokens WHERE token_hash = ?", arguments: [digest])
            guard now < row["expires_at"] as Int64 else { return .refused }
            return .tokens(try state.issueTokens(db, userID: row["user_id"], deviceID: row["device_id"], byRefresh: true))
        }
        switch outcome {
        case .tokens(let tokens):
            return .json(tokens)
        case .notCommittedYet:
            if quirks.closeConnectionAfterCommitLag { await state.connectionMarks.mark(context.channel) }
            throw APIError.detail(.unauthorized, "Invalid refresh token")
        case .refused:
            throw APIError.detail(.unauthorized, "Invalid refresh token")
        }
    }

    private func logout(_ request: Request, _ context: DevRequestContext) async throws -> Response {
        let body = BodyReader(body: try await request.jsonObject(context: context))
        let digest = Credentials.digest(try body.string("refresh_token"))
        try await state.database.write { db in
            try db.execute(sql: "DELETE FROM refresh_tokens WHERE token_hash = ?", arguments: [digest])
        }
        return .noContent
    }

    private func logoutAll(_ request: Request) async throws -> Response {
        let caller = try await state.authenticate(request)
        try await state.database.write { db in
            try db.execute(sql: "DELETE FROM refresh_tokens WHERE user_id = ?", arguments: [caller.userID])
        }
        return .noContent
    }

    private func wsTicket(_ request: Request) async throws -> Response {
        let caller = try await state.authenticate(request)
        let ticket = Credentials.newToken()
        let expiresAt = state.now + state.configuration.ticketLifetime.microseconds
        try await state.database.write { db in
            try db.execute(sql: "INSERT INTO ws_tickets (ticket_hash, user_id, device_id, expires_at) VALUES (?, ?, ?, ?)",
                           arguments: [Credentials.digest(ticket), caller.userID, caller.deviceID, expiresAt])
        }
        return .json(.object(["ticket": .string(ticket)]))
    }
}
