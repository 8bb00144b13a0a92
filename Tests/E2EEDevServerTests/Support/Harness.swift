import AsyncHTTPClient
import E2EEDevServer
import Foundation
import NIOCore
import NIOHTTP1

/// An HTTP answer as a test sees it.
struct APIResponse: Sendable {
    let status: Int
    let headers: HTTPHeaders
    let text: String

    /// The body parsed as JSON, or `nil`.
    var json: JSONValue? { try? JSONValue.parse(Data(text.utf8)) }
    /// The `detail` string of an error body.
    var detail: String? { json?["detail"]?.stringValue }
}

/// A registered user: tokens and ids.
struct TestUser: Sendable {
    let username: String
    let accessToken: String
    let refreshToken: String
    let userID: String
    let deviceID: String
}

/// A dev server on 127.0.0.1:0 and a real HTTP client talking to it over loopback.
struct Harness: Sendable {
    let server: RunningDevServer

    /// Runs `body` against a fresh server and always shuts it down.
    static func with<T: Sendable>(
        _ configuration: DevServerConfiguration = .testing(),
        _ body: (Harness) async throws -> T
    ) async throws -> T {
        let server = try await DevServer.start(configuration: configuration)
        do {
            let result = try await body(Harness(server: server))
            await server.shutdown()
            return result
        } catch {
            await server.shutdown()
            throw error
        }
    }

    /// Sends one request; `path` starts with `/`.
    func call(
        _ method: HTTPMethod, _ path: String, json: JSONValue? = nil, token: String? = nil,
        headers: [(String, String)] = []
    ) async throws -> APIResponse {
        var request = HTTPClientRequest(url: server.baseURL + path)
        request.method = method
        if let json {
            request.headers.add(name: "Content-Type", value: "application/json")
            request.body = .bytes(ByteBuffer(string: json.text))
        }
        if let token { request.headers.add(name: "Authorization", value: "Bearer \(token)") }
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(10))
        let body = try await response.body.collect(upTo: 1 << 22)
        return APIResponse(status: Int(response.status.code), headers: response.headers, text: String(buffer: body))
    }

    /// Registers `username` (password `password123`).
    func register(_ username: String, device: String = "default") async throws -> TestUser {
        let response = try await call(.POST, "/api/v1/auth/register", json: .object([
            "username": .string(username), "password": .string("password123"), "device_name": .string(device),
        ]))
        return try Self.user(username, response)
    }

    /// Logs `username` in again (a new device).
    func login(_ username: String) async throws -> TestUser {
        let response = try await call(.POST, "/api/v1/auth/login", json: .object([
            "username": .string(username), "password": .string("password123"), "device_name": .string("second"),
        ]))
        return try Self.user(username, response)
    }

    static func user(_ username: String, _ response: APIResponse) throws -> TestUser {
        guard (200...201).contains(response.status), let json = response.json,
              let access = json["access_token"]?.stringValue, let refresh = json["refresh_token"]?.stringValue,
              let userID = json["user_id"]?.stringValue, let deviceID = json["device_id"]?.stringValue
        else { throw HarnessError.unexpected(response.status, response.text) }
        return TestUser(username: username, accessToken: access, refreshToken: refresh, userID: userID, deviceID: deviceID)
    }

    /// A fresh WebSocket ticket for `user`.
    func ticket(_ user: TestUser) async throws -> String {
        let response = try await call(.POST, "/api/v1/auth/ws-ticket", token: user.accessToken)
        guard response.status == 200, let ticket = response.json?["ticket"]?.stringValue else {
            throw HarnessError.unexpected(response.status, response.text)
        }
        return ticket
    }

    /// Opens a WebSocket for `user` with a fresh ticket.
    func connect(_ user: TestUser) async throws -> SocketProbe {
        try await SocketProbe.connect(url: server.webSocketURL + "?ticket=" + (try await ticket(user)))
    }

    /// Creates a group channel owned by `user`; returns its id.
    func createChannel(_ user: TestUser, name: String = "general") async throws -> String {
        let response = try await call(.POST, "/api/v1/channels", json: .object(["name": .string(name)]), token: user.accessToken)
        guard response.status == 201, let id = response.json?["id"]?.stringValue else {
            throw HarnessError.unexpected(response.status, response.text)
        }
        return id
    }

    /// Posts a message; returns its JSON.
    func send(_ user: TestUser, _ channelID: String, _ content: String) async throws -> JSONValue {
        let response = try await call(.POST, "/api/v1/channels/\(channelID)/messages",
                                      json: .object(["content": .string(content)]), token: user.accessToken)
        guard response.status == 201, let json = response.json else { throw HarnessError.unexpected(response.status, response.text) }
        return json
    }

    /// A raw WebSocket handshake through the HTTP client, to read the status a refused one gets.
    /// A fresh client is used: a real WebSocket client always opens a new connection.
    func handshake(ticket: String) async throws -> APIResponse {
        let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: .init(redirectConfiguration: .disallow))
        do {
            var request = HTTPClientRequest(url: server.baseURL + "/ws?ticket=" + ticket)
            for (name, value) in [("Connection", "Upgrade"), ("Upgrade", "websocket"),
                                  ("Sec-WebSocket-Key", "dGhlIHNhbXBsZSBub25jZQ=="), ("Sec-WebSocket-Version", "13")] {
                request.headers.add(name: name, value: value)
            }
            let response = try await client.execute(request, timeout: .seconds(10))
            let body = try await response.body.collect(upTo: 1 << 16)
            try await client.shutdown()
            return APIResponse(status: Int(response.status.code), headers: response.headers, text: String(buffer: body))
        } catch {
            try? await client.shutdown()
            throw error
        }
    }

    /// The status of a raw handshake with `ticket`.
    func handshakeStatus(ticket: String) async throws -> Int {
        try await handshake(ticket: ticket).status
    }
}

/// A harness step got an answer it did not expect.
enum HarnessError: Error {
    case unexpected(Int, String)
    case handshakeFailed
    case timedOut
}
