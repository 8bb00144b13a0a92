import AsyncHTTPClient
import E2EEMessaging
import Foundation
import NIOCore
import NIOHTTP1

/// One HTTP exchange with the server: builds the request, honours one 429 (waits `Retry-After`
/// through the injected sleep, then retries once), retries once on another connection when the
/// request got no answer and repeating it is safe (see ``TransportFailure``), and maps failures
/// to ``ServerError``. Each attempt, body included, has an overall deadline of `timeout`.
struct HTTPRequester: Sendable {
    let client: HTTPClient
    let baseURL: String
    let timeout: TimeAmount
    let sleep: @Sendable (Duration) async throws -> Void

    /// Sends and returns the 2xx body. `repeatable`: whether sending the request twice is
    /// harmless (idempotent methods, and POSTs the API treats as upserts); only such a request
    /// is repeated after its connection closed unanswered.
    func send(_ method: HTTPMethod, _ path: String, body: [UInt8]?, token: String?, repeatable: Bool) async throws -> [UInt8] {
        do {
            return try await attempt(method, path, body: body, token: token, repeatable: repeatable)
        } catch ServerError.rateLimited(let retryAfter) {
            try await sleep(.seconds(min(max(retryAfter ?? 10, 0), 300)))
            return try await attempt(method, path, body: body, token: token, repeatable: repeatable)
        }
    }

    /// `GET /health` at the server's root, once, within `deadline`: no retry of any kind (the
    /// caller checks again on its own schedule).
    /// - Throws: ``ServerError/transport(_:)`` when no answer came, the status's case otherwise.
    func checkHealth(within deadline: TimeAmount) async throws {
        try await RequestDeadline.run(within: deadline) { [self] in
            do {
                _ = try await exchange(.GET, "/health", body: nil, token: nil, root: true)
            } catch let failure as TransportFailure {
                throw failure.serverError
            }
        }
    }

    /// One attempt (with its one repeat after an unanswered connection) within the overall
    /// deadline `timeout` (``RequestDeadline``).
    private func attempt(_ method: HTTPMethod, _ path: String, body: [UInt8]?, token: String?, repeatable: Bool) async throws -> [UInt8] {
        try await RequestDeadline.run(within: timeout) { [self] in
            try await attemptWithoutDeadline(method, path, body: body, token: token, repeatable: repeatable)
        }
    }

    private func attemptWithoutDeadline(_ method: HTTPMethod, _ path: String, body: [UInt8]?, token: String?, repeatable: Bool) async throws -> [UInt8] {
        do {
            return try await exchange(method, path, body: body, token: token)
        } catch let failure as TransportFailure where failure.allowsRetry(repeatable: repeatable) {
            do {
                return try await exchange(method, path, body: body, token: token)
            } catch let failure as TransportFailure {
                throw failure.serverError
            }
        } catch let failure as TransportFailure {
            throw failure.serverError
        }
    }

    /// One request and its answer.
    /// - Throws: ``TransportFailure`` when no answer came, ``ServerError`` for a non-2xx answer.
    private func exchange(_ method: HTTPMethod, _ path: String, body: [UInt8]?, token: String?, root: Bool = false) async throws -> [UInt8] {
        var request = HTTPClientRequest(url: baseURL + (root ? "" : "/api/v1") + path)
        request.method = method
        if let body {
            request.headers.add(name: "Content-Type", value: "application/json")
            request.body = .bytes(ByteBuffer(bytes: body))
        }
        if let token { request.headers.add(name: "Authorization", value: "Bearer " + token) }
        let response: HTTPClientResponse
        do {
            response = try await client.execute(request, timeout: timeout)
        } catch {
            throw TransportFailure(error)
        }
        let bytes: [UInt8]
        do {
            var buffer = try await response.body.collect(upTo: Self.maxBodyBytes)
            bytes = buffer.readBytes(length: buffer.readableBytes) ?? []
        } catch is NIOTooManyBytesError {
            throw ServerError.responseTooLarge(limit: Self.maxBodyBytes)
        } catch {
            // The answer started: the request was processed. Never repeated.
            throw ServerError.transport(String(describing: type(of: error)))
        }
        let status = Int(response.status.code)
        guard (200..<300).contains(status) else {
            let retryAfter = RetryAfter.seconds(fromHeader: response.headers.first(name: "Retry-After"))
            throw ServerError.from(status: status, body: bytes, retryAfter: retryAfter)
        }
        return bytes
    }

    /// The largest answer body read (16 MiB): a larger one is ``ServerError/responseTooLarge(limit:)``.
    static let maxBodyBytes = 1 << 24

    /// `value` percent-encoded for a query (only unreserved characters stay; `+` becomes `%2B`).
    static func queryEncoded(_ value: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return value.addingPercentEncoding(withAllowedCharacters: allowed) ?? ""
    }

    /// `value` as a single path segment.
    static func pathSegment(_ value: String) -> String { queryEncoded(value) }
}
