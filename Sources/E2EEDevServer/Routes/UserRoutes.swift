import GRDB
import Hummingbird

/// `/api/v1/users`: me, by id, search (at most 20), lookup by `user@domain`.
struct UserRoutes {
    let state: ServerState

    private static let columns = "id, username, email, display_name, created_at"

    func register(on router: Router<DevRequestContext>) {
        let group = router.group("api/v1/users")
        group.get("me") { request, _ in
            let caller = try await state.authenticate(request)
            guard let user = try await fetchUser(where: "id = ?", caller.userID, includeEmail: true) else { throw APIError.notFound }
            return Response.json(user)
        }
        group.get("search") { request, _ in
            _ = try await state.authenticate(request)
            guard let query = request.formQuery["q"], !query.isEmpty else {
                throw APIError.validation(["query", "q"], "Field required", type: "missing")
            }
            let pattern = "%" + query.replacingOccurrences(of: "%", with: "") + "%"
            let domain = state.configuration.serverDomain
            let users = try await state.database.read { db in
                try Row.fetchAll(db, sql: "SELECT \(Self.columns) FROM users WHERE username LIKE ? OR display_name LIKE ? ORDER BY username LIMIT 20",
                                 arguments: [pattern, pattern]).map { Representation.user($0, domain: domain) }
            }
            return Response.json(.array(users))
        }
        group.get("lookup") { request, _ in
            _ = try await state.authenticate(request)
            guard let identity = request.formQuery["identity"], !identity.isEmpty else {
                throw APIError.validation(["query", "identity"], "Field required", type: "missing")
            }
            let parts = identity.split(separator: "@", maxSplits: 1, omittingEmptySubsequences: false)
            guard parts.count == 2, !parts[0].isEmpty else { throw APIError.detail(.badRequest, "Invalid identity") }
            guard parts[1].lowercased() == state.configuration.serverDomain.lowercased(),
                  let user = try await fetchUser(where: "username = ?", String(parts[0]))
            else { throw APIError.detail(.notFound, "User not found") }
            return Response.json(user)
        }
        group.get("{id}") { request, context in
            _ = try await state.authenticate(request)
            let id = try context.uuidParameter("id")
            guard let user = try await fetchUser(where: "id = ?", id) else { throw APIError.detail(.notFound, "User not found") }
            return Response.json(user)
        }
    }

    private func fetchUser(where condition: String, _ value: String, includeEmail: Bool = false) async throws -> JSONValue? {
        let domain = state.configuration.serverDomain
        return try await state.database.read { db in
            try Row.fetchOne(db, sql: "SELECT \(Self.columns) FROM users WHERE \(condition)", arguments: [value])
                .map { Representation.user($0, domain: domain, includeEmail: includeEmail) }
        }
    }
}
