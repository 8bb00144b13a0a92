import AsyncHTTPClient
import E2EEMessaging
import Foundation
import NIOCore
import NIOHTTP1

/// `ChatServerAPI` over AsyncHTTPClient. Authenticated calls use ``AuthSession``: on a 401
/// (or a 403 "Not authenticated") the session refreshes once — concurrent failures share one
/// refresh — and the call is retried once; a second refusal ends the session
/// (`ServerError.sessionEnded`). A 429 waits `Retry-After` seconds and retries once.
///
/// A request whose connection closed before any answer (docs/spec/server-api.md §1: a keep-alive
/// connection closed unanswered) is sent once more on another connection when it was never sent
/// or when repeating it is harmless: GET, PUT, DELETE and PATCH, the POSTs that are upserts or
/// no-ops when repeated (logout, logout-all, ws-ticket, key upload, sender-key upload, open DM,
/// join, leave), and refresh (a processed refresh's token is dead whether or not it is
/// repeated). Other POSTs (register, login, one-time prekeys, create channel, add member, send
/// message) are not repeated: the server has no idempotency keys, so a repeat could create a
/// duplicate; they surface `ServerError.transport(_:)` with an unknown outcome, which the
/// caller reconciles (docs/spec/sync.md, outbox). A repeated DELETE whose first attempt was processed
/// answers 404.
public struct HTTPChatServer: ChatServerAPI {
    /// The session whose tokens this client uses.
    public let session: AuthSession
    let requester: HTTPRequester

    /// A client for the server at `baseURL` (`http://host:port`, no `/api/v1`).
    /// - Parameters:
    ///   - baseURL: the server's address, `http://host:port` or `https://…`.
    ///   - session: the tokens that sign the requests (and refresh them).
    ///   - client: the AsyncHTTPClient to send through (``ChatServer/sharedClient`` by default; an
    ///     app's own should start from ``ChatServer/clientConfiguration()``).
    ///   - timeout: the longest wait for one request's answer.
    ///   - sleep: waits the given duration (`Retry-After`, clamped to 0…300 s) before
    ///     retrying a 429 (inject to test).
    public init(baseURL: String, session: AuthSession, client: HTTPClient = ChatServer.sharedClient, timeout: TimeAmount = .seconds(30),
                sleep: @escaping @Sendable (Duration) async throws -> Void = { try await Task.sleep(for: $0) }) {
        self.session = session
        self.requester = HTTPRequester(client: client, baseURL: baseURL, timeout: timeout, sleep: sleep)
    }

    /// Whether a request may be repeated after its connection closed unanswered: idempotent
    /// methods by default; a POST only when its route says so.
    static func isRepeatable(_ method: HTTPMethod) -> Bool {
        switch method {
        case .GET, .HEAD, .PUT, .DELETE, .OPTIONS, .PATCH: true
        default: false
        }
    }

    /// An unauthenticated call.
    func publicCall(_ method: HTTPMethod, _ path: String, body: (some Encodable & Sendable)? = nil as Empty?,
                    repeatable: Bool? = nil) async throws -> [UInt8] {
        try await requester.send(method, path, body: try encode(body), token: nil, repeatable: repeatable ?? Self.isRepeatable(method))
    }

    /// An authenticated call with one refresh-and-retry on 401.
    func call(_ method: HTTPMethod, _ path: String, body: (some Encodable & Sendable)? = nil as Empty?,
              repeatable: Bool? = nil) async throws -> [UInt8] {
        let bytes = try encode(body)
        let repeatable = repeatable ?? Self.isRepeatable(method)
        let token = try await session.currentAccessToken()
        do {
            return try await requester.send(method, path, body: bytes, token: token, repeatable: repeatable)
        } catch let error as ServerError where error.isUnauthenticated {
            let requester = self.requester
            try await session.refresh(after: token) { refreshToken in
                let body = try JSONEncoder().encode(["refresh_token": refreshToken])
                // Repeatable: if the first refresh was processed, the repeat is refused (401)
                // and the session ends, which is where not repeating would lead too.
                let answer = try await requester.send(.POST, "/auth/refresh", body: Array(body), token: nil, repeatable: true)
                return try Self.decode(TokenResponse.self, answer)
            }
            let fresh = try await session.currentAccessToken()
            do {
                return try await requester.send(method, path, body: bytes, token: fresh, repeatable: repeatable)
            } catch let error as ServerError where error.isUnauthenticated {
                await session.end()
                throw ServerError.sessionEnded
            }
        }
    }

    /// An authenticated call decoding its answer as `T`.
    func call<T: Decodable>(_ type: T.Type, _ method: HTTPMethod, _ path: String, body: (some Encodable & Sendable)? = nil as Empty?,
                            repeatable: Bool? = nil) async throws -> T {
        try Self.decode(type, try await call(method, path, body: body, repeatable: repeatable))
    }

    static func decode<T: Decodable>(_ type: T.Type, _ bytes: [UInt8]) throws -> T {
        try ServerJSON.decode(type, from: bytes)
    }

    private func encode(_ body: (some Encodable)?) throws -> [UInt8]? {
        guard let body else { return nil }
        do { return Array(try JSONEncoder().encode(body)) } catch { throw ServerError.decoding("unencodable body") }
    }

    /// The empty body type.
    struct Empty: Encodable, Sendable {}
}
