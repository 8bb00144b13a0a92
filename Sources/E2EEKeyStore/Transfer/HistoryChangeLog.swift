import GRDB

/// The change log a primary keeps for phase 2 of a history transfer (docs/spec/protocol.md
/// §11.8): while a transfer's snapshot mark is open, the server id of every `message` row
/// inserted into the timeline or changed (state, plaintext, edit time) is appended to
/// `history_changes`, so that phase 2 lists the arrivals, edits and deletions since the mark.
///
/// Two triggers on `timeline` do the logging, and they exist only while a mark is open (since
/// schema `v31`): taking the first mark creates them and closing the last drops them, each in the
/// transaction that changes the marks. A trigger on the table costs every insert of a received
/// row about 4 µs of SQLite's time even when its condition is false (Benchmarks/README.md,
/// eleventh session), and a store has a mark open only during a transfer.
enum HistoryChangeLog {
    /// Takes the snapshot mark of `transferID` at the newest logged change (moving it if taken
    /// before), with the window's `lowerBound` when phase 2 is to read it back, and starts the
    /// logging. Returns the mark.
    /// - Throws: GRDB's `DatabaseError`.
    static func openMark(transferID: String, lowerBound: Int64?, at now: StoreTime, _ db: Database) throws -> Int64 {
        let mark = try Int64.fetchOne(db, sql: "SELECT COALESCE(MAX(seq), 0) FROM history_changes") ?? 0
        try db.run("INSERT OR REPLACE INTO history_marks (transfer_id, change_seq, taken_at, lower_bound) VALUES (?, ?, ?, ?)",
                   [transferID, mark, now.microseconds, lowerBound])
        try db.execute(sql: triggersSQL)
        return mark
    }

    /// Closes the mark of `transferID` (no error when none is open): every logged change no open
    /// mark needs goes, and with the last mark the log's triggers.
    /// - Throws: GRDB's `DatabaseError`.
    static func closeMark(transferID: String, _ db: Database) throws {
        try db.run("DELETE FROM history_marks WHERE transfer_id = ?", [transferID])
        if let oldest = try Int64.fetchOne(db, sql: "SELECT MIN(change_seq) FROM history_marks") {
            try db.run("DELETE FROM history_changes WHERE seq <= ?", [oldest])
        } else {
            try db.run("DELETE FROM history_changes")
            try db.execute(sql: dropTriggersSQL)
        }
    }

    /// Makes the triggers exist exactly when a mark is open (schema `v31`, on a store made with
    /// the permanent triggers of `v24`).
    /// - Throws: GRDB's `DatabaseError`.
    static func matchTriggersToMarks(_ db: Database) throws {
        try db.execute(sql: dropTriggersSQL)
        if try db.count("SELECT EXISTS (SELECT 1 FROM history_marks)") == 1 { try db.execute(sql: triggersSQL) }
    }

    /// The log's triggers, created unless they exist (their conditions are `v24`'s).
    static let triggersSQL = """
        CREATE TRIGGER IF NOT EXISTS history_change_insert AFTER INSERT ON timeline
        WHEN NEW.kind = 'message' AND EXISTS (SELECT 1 FROM history_marks)
        BEGIN
            INSERT INTO history_changes (message_id) VALUES (NEW.message_id);
        END;
        CREATE TRIGGER IF NOT EXISTS history_change_update AFTER UPDATE OF state, plaintext, edited_at ON timeline
        WHEN NEW.kind = 'message' AND EXISTS (SELECT 1 FROM history_marks)
        BEGIN
            INSERT INTO history_changes (message_id) VALUES (NEW.message_id);
        END;
        """

    private static let dropTriggersSQL = "DROP TRIGGER IF EXISTS history_change_insert; DROP TRIGGER IF EXISTS history_change_update;"
}
