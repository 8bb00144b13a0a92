import GRDB
import Hummingbird

/// Who is calling: the user and the device of the access token.
struct Caller: Sendable {
    let userID: String
    let deviceID: String
}

extension ServerState {
    /// Resolves the bearer token of `request`.
    /// - Throws: ``APIError`` 401 with `WWW-Authenticate: Bearer` (or the configured 403)
    ///   `Not authenticated` without a bearer header; 401 `Could not validate credentials` for an unknown or expired token.
    func authenticate(_ request: Request) async throws -> Caller {
        guard let header = request.headers[.authorization], header.lowercased().hasPrefix("bearer "),
              case let token = String(header.dropFirst(7)).trimmingCharacters(in: .whitespaces), !token.isEmpty
        else {
            var refusal = APIError.detail(HTTPResponse.Status(code: configuration.missingBearerStatus), "Not authenticated")
            if configuration.missingBearerStatus == 401 { refusal.headers[.wwwAuthenticate] = "Bearer" }
            throw refusal
        }
        let digest = Credentials.digest(token)
        let found = try await database.read { db -> (caller: Caller, issuedAt: Int64, expiresAt: Int64, banned: Bool)? in
            guard let row = try Row.fetchOne(db, sql: """
                SELECT a.user_id, a.device_id, a.issued_at, a.expires_at, u.banned FROM access_tokens a
                JOIN users u ON u.id = a.user_id WHERE a.token_hash = ?
                """, arguments: [digest])
            else { return nil }
            return (Caller(userID: row["user_id"], deviceID: row["device_id"]), row["issued_at"], row["expires_at"], row["banned"])
        }
        guard let found, now < found.expiresAt else { throw APIError.invalidCredentials }
        if let cutoff = await faults.accessTokensExpiredBefore, found.issuedAt <= cutoff { throw APIError.invalidCredentials }
        if found.banned { throw APIError.detail(.forbidden, "User is banned") }
        return found.caller
    }

    /// Issues an access and a refresh token for `deviceID` inside `db`, returning the token body;
    /// `byRefresh` marks a rotation (see ``DevServerQuirks/refreshTokenCommitLag``).
    func issueTokens(_ db: Database, userID: String, deviceID: String, byRefresh: Bool = false) throws -> JSONValue {
        let now = self.now
        let access = Credentials.newToken()
        let refresh = Credentials.newToken()
        try db.execute(
            sql: "INSERT INTO access_tokens (token_hash, user_id, device_id, issued_at, expires_at) VALUES (?, ?, ?, ?, ?)",
            arguments: [Credentials.digest(access), userID, deviceID, now, now + configuration.accessTokenLifetime.microseconds]
        )
        try db.execute(
            sql: "INSERT INTO refresh_tokens (token_hash, user_id, device_id, expires_at, issued_by_refresh) VALUES (?, ?, ?, ?, ?)",
            arguments: [Credentials.digest(refresh), userID, deviceID, now + configuration.refreshTokenLifetime.microseconds, byRefresh]
        )
        return .object([
            "access_token": .string(access),
            "refresh_token": .string(refresh),
            "token_type": .string("bearer"),
            "user_id": .string(userID),
            "device_id": .string(deviceID),
        ])
    }
}

import Foundation
