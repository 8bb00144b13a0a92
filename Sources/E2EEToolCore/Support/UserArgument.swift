import E2EEMessaging
import Foundation

/// A user named on the command line: a user id, or a username looked up on the server.
enum UserArgument {
    /// The id `text` names.
    /// - Throws: ``ToolError`` (not found) for a username the server does not know, ``ServerError``.
    static func resolve(_ text: String, in account: Account) async throws -> UserID {
        if UUID(uuidString: text) != nil { return UserID(text) }
        guard let user = try await account.user(named: text) else { throw ToolError(.notFound, "no user named \(text)") }
        return user.id
    }

    /// `alice (<id>)`, or the bare id when the server cannot say (never fails a command).
    static func describe(_ id: UserID, in account: Account) async -> String {
        guard let user = try? await account.user(id: id) else { return id.rawValue }
        return "\(user.username) (\(id.rawValue))"
    }

    /// Each id's username, for JSON output (ids the server cannot name are left out).
    static func names(_ ids: [UserID], in account: Account) async -> [String: String] {
        var names: [String: String] = [:]
        for id in ids {
            if let user = try? await account.user(id: id) { names[id.rawValue] = user.username }
        }
        return names
    }
}
