import GRDB

extension StoreSchema {
    /// `v17`: the certificate this device publishes in its signed prekey record
    /// (docs/spec/protocol.md §1.4, text 1.3).
    ///
    /// - `published_certificate`: at most one row, the 104 bytes every upload of the record
    ///   carries, across signed prekey rotations, until replaced. No row: the zero certificate.
    ///   Public (certificates are published), so not sealed.
    static func recordPublishedCertificate(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE published_certificate (
                id INTEGER PRIMARY KEY CHECK (id = 1),
                certificate BLOB NOT NULL CHECK (length(certificate) = 104),
                updated_at INTEGER NOT NULL
            );
            """)
    }
}
