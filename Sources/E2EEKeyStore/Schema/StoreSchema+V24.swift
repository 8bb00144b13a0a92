import GRDB

extension StoreSchema {
    /// `v24`: the history part of a link transfer (docs/spec/protocol.md §11.7–§11.9).
    ///
    /// - `timeline.history_transfer_id`, `timeline.history_source_device_id`: on a new device, a
    ///   row whose text came from its primary's transfer (*transferred*): the transfer that
    ///   imported it and the primary's device id, shown as a label. `NULL` on every row this
    ///   device decrypted itself.
    /// - `history_marks`: on a primary, one snapshot mark per open transfer: the change sequence
    ///   when phase 1 was read. While a mark is open, the triggers `history_change_insert` and
    ///   `history_change_update` append to `history_changes` the server id of every `message`
    ///   row inserted or changed (state, plaintext, edit time), so that phase 2 lists the
    ///   arrivals, edits and deletions since the mark. With no mark open they record nothing
    ///   (one probe of an empty table per timeline write). Since `v31` they exist only while a
    ///   mark is open (``HistoryChangeLog``).
    /// - `history_replacements` and the trigger `history_replaced`: when this device later
    ///   decrypts a transferred row itself, the receive path's write replaces the text; the
    ///   trigger keeps the transferred text (sealed as it was, under the row's own associated
    ///   data) and drops the label, so that a difference is surfaced.
    static func recordHistoryTransfer(_ db: Database) throws {
        try db.execute(sql: """
            ALTER TABLE timeline ADD COLUMN history_transfer_id TEXT;
            ALTER TABLE timeline ADD COLUMN history_source_device_id TEXT;
            CREATE INDEX timeline_transferred ON timeline(history_transfer_id) WHERE history_transfer_id IS NOT NULL;
            CREATE TABLE history_marks (
                transfer_id TEXT PRIMARY KEY NOT NULL,
                change_seq INTEGER NOT NULL,
                taken_at INTEGER NOT NULL
            ) WITHOUT ROWID;
            CREATE TABLE history_changes (
                seq INTEGER PRIMARY KEY AUTOINCREMENT,
                message_id TEXT NOT NULL
            );
            CREATE TABLE history_replacements (
                message_id TEXT PRIMARY KEY NOT NULL REFERENCES timeline(message_id) ON DELETE CASCADE,
                channel_id TEXT NOT NULL,
                transfer_id TEXT NOT NULL,
                source_device_id TEXT,
                transferred_plaintext BLOB,
                replaced_at INTEGER NOT NULL
            );
            CREATE TRIGGER history_change_insert AFTER INSERT ON timeline
            WHEN NEW.kind = 'message' AND EXISTS (SELECT 1 FROM history_marks)
            BEGIN
                INSERT INTO history_changes (message_id) VALUES (NEW.message_id);
            END;
            CREATE TRIGGER history_change_update AFTER UPDATE OF state, plaintext, edited_at ON timeline
            WHEN NEW.kind = 'message' AND EXISTS (SELECT 1 FROM history_marks)
            BEGIN
                INSERT INTO history_changes (message_id) VALUES (NEW.message_id);
            END;
            CREATE TRIGGER history_replaced AFTER UPDATE OF plaintext ON timeline
            WHEN OLD.history_transfer_id IS NOT NULL AND NEW.history_transfer_id IS OLD.history_transfer_id
                AND NEW.state = 'decrypted' AND NEW.plaintext IS NOT NULL
            BEGIN
                INSERT OR REPLACE INTO history_replacements (message_id, channel_id, transfer_id, source_device_id, transferred_plaintext, replaced_at)
                VALUES (OLD.message_id, OLD.channel_id, OLD.history_transfer_id, OLD.history_source_device_id, OLD.plaintext,
                        CAST((julianday('now') - 2440587.5) * 86400000000 AS INTEGER));
                UPDATE timeline SET history_transfer_id = NULL, history_source_device_id = NULL WHERE message_id = NEW.message_id;
            END;
            """)
    }
}
