import Foundation

extension Account {
    /// The user whose username is `username`, or `nil` when the server has none: what an app
    /// needs to turn a name the user typed into the id `openDirectMessage(with:)` takes.
    ///
    /// The server's search (`GET /users/search?q=`, at most 20 answers, matching parts of names)
    /// is asked first and an exact username taken from it; a name the search answers with 20
    /// others and not itself is looked up exactly (`GET /users/lookup?identity=name@domain`,
    /// with the domain the server gives for our own user). A username differing only in case
    /// is taken when it is the only such one.
    /// - Throws: ``ServerError`` when the server could not be asked.
    public func user(named username: String) async throws -> ServerUser? {
        let name = username.trimmingCharacters(in: .whitespaces)
        guard !name.isEmpty else { return nil }
        let found = try await api.searchUsers(query: name)
        if let exact = found.first(where: { $0.username == name }) { return exact }
        let folded = found.filter { $0.username.lowercased() == name.lowercased() }
        if folded.count == 1 { return folded[0] }
        guard found.count >= 20, let domain = try await api.currentUser().serverDomain else { return nil }
        do {
            return try await api.lookupUser(identity: "\(name)@\(domain)")
        } catch ServerError.notFound(_) {
            return nil
        }
    }

    /// The user with `id` — its username, to show in place of the id (a request's candidate,
    /// a held member, an announcement's author). Asked of the server once and kept for the
    /// account's life, so a list of ids costs one request per user, not per row.
    /// - Throws: ``ServerError`` (`notFound` for an unknown user) when it was never read.
    public func user(id: UserID) async throws -> ServerUser {
        if let known = usersByID[id] { return known }
        let user = try await api.user(id: id)
        usersByID[id] = user
        return user
    }
}
