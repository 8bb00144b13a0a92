import Hummingbird

/// Runs before every route: dropped requests first (connection closed unanswered), injected
/// failures, then the rate limit (which, as on the reference server, leaves `GET /health` out).
struct DevMiddleware: RouterMiddleware {
    typealias Context = DevRequestContext
    let state: ServerState

    func handle(
        _ request: Request,
        context: DevRequestContext,
        next: (Request, DevRequestContext) async throws -> Response
    ) async throws -> Response {
        if state.configuration.logRequests {
            state.logger.info("\(request.method) \(request.uri.path)")
        }
        // The admin routes stay reachable whatever faults are on.
        if request.uri.path.hasPrefix("/_dev/") { return try await next(request, context) }
        if await state.faults.takeDrop() {
            try await Self.drop(context)
        }
        if await state.connectionMarks.take(context.channel) {
            await state.faults.countDrop()
            try await Self.drop(context)
        }
        if let failure = await state.faults.takeFailure() {
            let status = HTTPResponse.Status(code: failure.status)
            if failure.plainText { throw APIError(status: status, body: .plainText("Injected failure")) }
            throw APIError.detail(status, "Injected failure")
        }
        if request.uri.path != "/health" { try await Self.checkRateLimit(state: state, context: context) }
        return try await next(request, context)
    }

    /// Closes the connection without answering or handling the request.
    /// - Throws: always (the error's response is never written: the connection is closed).
    private static func drop(_ context: DevRequestContext) async throws -> Never {
        try? await context.channel.close()
        throw APIError.detail(.serviceUnavailable, "Connection dropped")
    }

    /// Counts the request against its IP's window.
    /// - Throws: ``APIError`` 429 with `Retry-After` when over the limit.
    static func checkRateLimit(state: ServerState, context: DevRequestContext) async throws {
        let ip = context.remoteAddress?.ipAddress ?? "unknown"
        guard await state.rateLimiter.admit(ip: ip, now: state.now) else {
            var error = APIError.detail(.tooManyRequests, "Rate limit exceeded")
            error.headers[.retryAfter] = state.configuration.rateLimit?.retryAfterHeader ?? "10"
            throw error
        }
    }
}
