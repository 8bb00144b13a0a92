import AsyncHTTPClient
import E2EEMessaging
import Foundation
import NIOCore
import NIOHTTP1

/// One HTTP exchange with the server: builds the request, honours one 429 (waits `Retry-After`
/// through the injected sleep, then retries once), maps failures to ``ServerError``.
struct HTTPRequester: Sendable {
    let client: HTTPClient
    let baseURL: String
    let timeout: TimeAmount
    let sleep: @Sendable (Int) async throws -> Void
    /// The longest `Retry-After` honoured (seconds).
    static let maxRetryAfterSeconds = 300

    /// Sends and returns the 2xx body.
    func send(_ method: HTTPMethod, _ path: String, body: [UInt8]?, token: String?) async throws -> [UInt8] {
        do {
            return try await attempt(method, path, body: body, token: token)
        } catch ServerError.rateLimited(let retryAfter) {
            try await sleep(retryAfter ?? 10)
            return try await attempt(method, path, body: body, token: token)
        }
    }

    private func attempt(_ method: HTTPMethod, _ path: String, body: [UInt8]?, token: String?) async throws -> [UInt8] {
        var request = HTTPClientRequest(url: baseURL + "/api/v1" + path)
        request.method = method
        if let body {
            request.headers.add(name: "Content-Type", value: "application/json")
            request.body = .bytes(ByteBuffer(bytes: body))
        }
        if let token { request.headers.add(name: "Authorization", value: "Bearer " + token) }
        let status: Int
        let headers: HTTPHeaders
        let bytes: [UInt8]
        do {
            let response = try await client.execute(request, timeout: timeout)
            status = Int(response.status.code)
            headers = response.headers
            var buffer = try await response.body.collect(upTo: 1 << 24)
            bytes = buffer.readBytes(length: buffer.readableBytes) ?? []
        } catch {
            throw ServerError.transport(String(describing: type(of: error)))
        }
        guard (200..<300).contains(status) else {
            // Clamped: a hostile or broken header must not make the client wait for ever or overflow.
            let retryAfter = headers.first(name: "Retry-After")
                .flatMap { Int($0.trimmingCharacters(in: .whitespaces)) }
                .map { min(max($0, 0), Self.maxRetryAfterSeconds) }
            throw ServerError.from(status: status, body: bytes, retryAfter: retryAfter)
        }
        return bytes
    }

    /// `value` percent-encoded for a query (only unreserved characters stay; `+` becomes `%2B`).
    static func queryEncoded(_ value: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return value.addingPercentEncoding(withAllowedCharacters: allowed) ?? ""
    }

    /// `value` as a single path segment.
    static func pathSegment(_ value: String) -> String { queryEncoded(value) }
}
