import GRDB

extension StoreSchema {
    /// `v21`: what the trust part of a link transfer needs (docs/spec/protocol.md §11.3, §11.5).
    /// Written after `v20` (the primary file's mirror); public data only, stored in clear.
    ///
    /// - `device_links.certificate`: the 104 bytes of the certificate last verified for the
    ///   device (`NULL`: none, or read before `v21`), so that a primary can send the certificate
    ///   that proves a contact key's `E_max` and its own devices' certificates.
    /// - `provisional_pins`: users whose key standing was decided after the user skipped the
    ///   transfer (§11.1): such a pin is no decision of this device, and the next trust part
    ///   replaces it.
    /// - `transfer_marks`: decisions this device took from its primary's transfer, one row per
    ///   decided subject (`channel:<id>`, `member:<channel>/<user>`, `device:<user>/<device>`,
    ///   `hold:<channel>/<user>/<device>`, `key:<user>`), labelled with the primary's device id.
    static func recordTransferredTrust(_ db: Database) throws {
        try db.execute(sql: """
            ALTER TABLE device_links ADD COLUMN certificate BLOB CHECK (certificate IS NULL OR length(certificate) = 104);
            CREATE TABLE provisional_pins (
                user_id TEXT PRIMARY KEY NOT NULL,
                pinned_at INTEGER NOT NULL
            );
            CREATE TABLE transfer_marks (
                subject TEXT PRIMARY KEY NOT NULL,
                source_device_id TEXT NOT NULL,
                marked_at INTEGER NOT NULL
            ) WITHOUT ROWID;
            """)
    }
}
