import GRDB

/// What marking a message "removed from the server" did.
package enum ServerRemovalResult: Sendable, Equatable {
    /// The message is now marked (its plaintext kept).
    case marked
    /// It was marked already.
    case alreadyMarked
    /// No shown message has that id (unknown, a control or duplicate row, or erased by its
    /// sender's delete): nothing to mark.
    case notShown
    /// The stored message belongs to another channel than the one named.
    case channelMismatch
}

extension KeyStore {
    /// Marks a shown message as removed from the server at `time` (docs/spec/sync.md
    /// guarantee 9): the server's delete is a hint, so the row and its plaintext stay.
    /// - Throws: GRDB's `DatabaseError`.
    package func markRemovedFromServer(messageID: String, channelID: String, at time: StoreTime) async throws -> ServerRemovalResult {
        try await handOff.queuedWrite { db in
            guard let row = try db.row("SELECT channel_id, kind, state, removed_from_server_at FROM timeline WHERE message_id = ?", [messageID])
            else { return .notShown }
            let storedChannel: String? = row["channel_id"]
            guard storedChannel == channelID else { return .channelMismatch }
            let kind: String? = row["kind"]
            let state: String? = row["state"]
            guard kind == "message", state != "deleted" else { return .notShown }
            let marked: Int64? = row["removed_from_server_at"]
            guard marked == nil else { return .alreadyMarked }
            try db.run("UPDATE timeline SET removed_from_server_at = ? WHERE message_id = ?", [time.microseconds, messageID])
            return .marked
        }
    }

    /// Clears the mark of every message of `messageIDs` that has one (the server returned it
    /// again); returns the ids cleared.
    /// - Throws: GRDB's `DatabaseError`.
    package func clearRemovedFromServer(messageIDs: [String]) async throws -> [String] {
        guard !messageIDs.isEmpty else { return [] }
        return try await handOff.queuedWrite { db in
            var cleared: [String] = []
            for chunk in Self.chunks(of: messageIDs) {
                let marks = Array(repeating: "?", count: chunk.count).joined(separator: ",")
                let ids = try String.fetchAll(db, sql: "SELECT message_id FROM timeline WHERE removed_from_server_at IS NOT NULL AND message_id IN (\(marks))",
                                              arguments: StatementArguments(chunk))
                guard !ids.isEmpty else { continue }
                let idMarks = Array(repeating: "?", count: ids.count).joined(separator: ",")
                try db.execute(sql: "UPDATE timeline SET removed_from_server_at = NULL WHERE message_id IN (\(idMarks))", arguments: StatementArguments(ids))
                cleared += ids
            }
            return cleared
        }
    }

    /// Which of `messageIDs` are marked removed from the server.
    /// - Throws: GRDB's `DatabaseError`.
    package func removedFromServer(messageIDs: [String]) async throws -> Set<String> {
        guard !messageIDs.isEmpty else { return [] }
        return try await read { db in
            var marked: Set<String> = []
            for chunk in Self.chunks(of: messageIDs) {
                let marks = Array(repeating: "?", count: chunk.count).joined(separator: ",")
                marked.formUnion(try String.fetchAll(db, sql: "SELECT message_id FROM timeline WHERE removed_from_server_at IS NOT NULL AND message_id IN (\(marks))",
                                                     arguments: StatementArguments(chunk)))
            }
            return marked
        }
    }

    /// `ids` in chunks small enough for one statement's parameters.
    private static func chunks(of ids: [String]) -> [[String]] {
        stride(from: 0, to: ids.count, by: 500).map { Array(ids[$0..<min($0 + 500, ids.count)]) }
    }
}
