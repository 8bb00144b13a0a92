import GRDB

extension StoreSchema {
    /// `v23`: durable link transfers (docs/spec/protocol.md §11.3–§11.6), both ends, resumed
    /// at start-up.
    ///
    /// - `transfer_spool`: the primary's snapshot of one phase, cut into chunk-sized runs of
    ///   whole records, each sealed (column `records`, row id `<transfer>/<phase>/<chunk>`); kept
    ///   until the transfer ends, then deleted.
    /// - `transfer_outgoing`: the primary's state of each transfer it sends: the phase
    ///   manifests (public: counts and digest), how far it sent, the highest acknowledgement, its
    ///   resend timer and the times that bound the whole.
    /// - `transfer_envelopes`: the link envelope posted for each index (already encrypted, what a
    ///   resend posts again), deleted at the end.
    /// - `transfer_incoming`: the new device's state of the transfer it receives: the primary,
    ///   `next_index`, the manifests, which phases' trust parts are imported, its acknowledgement
    ///   timer and the import's figures.
    /// - `transfer_received`: the chunks the new device holds below `next_index` for a phase it
    ///   has not finished checking, each sealed (row id `<transfer>/<index>`); deleted once the
    ///   phase checks.
    /// - `transfer_skip`: the user went on without a failed transfer (§11.1, `skipTransfer`):
    ///   while the row stands, a contact's key standing decided here is provisional; the next
    ///   trust part that imports removes it.
    static func recordTransfers(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE transfer_spool (
                transfer_id TEXT NOT NULL,
                phase INTEGER NOT NULL CHECK (phase IN (1, 2)),
                chunk INTEGER NOT NULL CHECK (chunk >= 0),
                record_count INTEGER NOT NULL,
                records BLOB NOT NULL,
                PRIMARY KEY (transfer_id, phase, chunk)
            ) WITHOUT ROWID;
            CREATE TABLE transfer_outgoing (
                transfer_id TEXT PRIMARY KEY NOT NULL,
                device_id TEXT NOT NULL,
                channel_id TEXT NOT NULL,
                status TEXT NOT NULL CHECK (status IN ('running', 'done', 'failed', 'cancelled')),
                failure TEXT,
                manifest1 BLOB NOT NULL,
                manifest2 BLOB,
                sent_up_to INTEGER NOT NULL DEFAULT 0,
                highest_ack INTEGER NOT NULL DEFAULT 0,
                started_at INTEGER NOT NULL,
                progress_at INTEGER NOT NULL,
                timeout_at INTEGER NOT NULL,
                timeout_seconds INTEGER NOT NULL,
                window_resent_at INTEGER
            );
            CREATE TABLE transfer_envelopes (
                transfer_id TEXT NOT NULL,
                idx INTEGER NOT NULL,
                content TEXT NOT NULL,
                PRIMARY KEY (transfer_id, idx)
            ) WITHOUT ROWID;
            CREATE TABLE transfer_incoming (
                transfer_id TEXT PRIMARY KEY NOT NULL,
                primary_device_id TEXT NOT NULL,
                channel_id TEXT NOT NULL,
                user_key BLOB NOT NULL,
                status TEXT NOT NULL CHECK (status IN ('running', 'done', 'failed', 'cancelled')),
                failure TEXT,
                next_index INTEGER NOT NULL DEFAULT 0,
                manifest1 BLOB,
                manifest2 BLOB,
                imported1 INTEGER NOT NULL DEFAULT 0,
                imported2 INTEGER NOT NULL DEFAULT 0,
                records_done INTEGER NOT NULL DEFAULT 0,
                applied INTEGER NOT NULL DEFAULT 0,
                conflicts INTEGER NOT NULL DEFAULT 0,
                skipped INTEGER NOT NULL DEFAULT 0,
                started_at INTEGER NOT NULL,
                progress_at INTEGER NOT NULL,
                ack_at INTEGER NOT NULL,
                ack_seconds INTEGER NOT NULL,
                idle_acks INTEGER NOT NULL DEFAULT 0,
                duplicate_ack_at INTEGER
            );
            CREATE TABLE transfer_received (
                transfer_id TEXT NOT NULL,
                idx INTEGER NOT NULL,
                record_count INTEGER NOT NULL,
                records BLOB NOT NULL,
                PRIMARY KEY (transfer_id, idx)
            ) WITHOUT ROWID;
            CREATE TABLE transfer_skip (
                id INTEGER PRIMARY KEY CHECK (id = 1),
                skipped_at INTEGER NOT NULL
            );
            """)
    }
}
