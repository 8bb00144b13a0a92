import E2EEMessaging

extension HTTPChatServer {
    /// `GET /devices`. - Throws: `ServerError`.
    public func devices() async throws -> [ServerDevice] { try await call([ServerDevice].self, .GET, "/devices") }

    /// `DELETE /devices/{id}`; deleting this client's own device ends its session on the
    /// server (its refresh token is gone). - Throws: `ServerError` (404 unknown or not the
    /// caller's device).
    public func deleteDevice(id: DeviceID) async throws {
        _ = try await call(.DELETE, "/devices/" + HTTPRequester.pathSegment(id.rawValue))
    }

    /// `GET /health`, unauthenticated, once, within 2 s (or the client's request timeout when
    /// that is shorter). - Throws: `ServerError` (`transport` when no answer came).
    public func checkHealth() async throws {
        try await requester.checkHealth(within: min(requester.timeout, .seconds(2)))
    }
}
