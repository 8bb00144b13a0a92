import GRDB

extension StoreSchema {
    /// `v30`, the recerts a primary posted (docs/spec/protocol.md §10.13): per kept device, the
    /// digest of the certificate its last recert carried, the envelope as posted (ciphertext a
    /// resend posts again byte for byte, so a restarted primary moves no ratchet for a recert
    /// still unlisted) and when it was last posted (unix seconds, the system clock).
    static func recordPostedRecerts(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE posted_recerts (
                device_id TEXT PRIMARY KEY NOT NULL,
                certificate_digest BLOB NOT NULL CHECK (length(certificate_digest) = 32),
                envelope TEXT NOT NULL,
                posted_at INTEGER NOT NULL
            ) WITHOUT ROWID;
            """)
    }
}
