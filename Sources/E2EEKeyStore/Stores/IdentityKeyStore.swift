import E2EECrypto
import Foundation
import GRDB

/// This device's identity and signing keys.
package struct IdentityKeyStore: Sendable {
    static let table = "identity_keys"
    let sealer: Sealer

    /// A store sealing with `sealer`.
    public init(sealer: Sealer) { self.sealer = sealer }

    /// The keys, if made.
    /// - Throws: ``KeyStoreError`` for a corrupt or tampered row, GRDB's `DatabaseError`.
    public func loadIdentityKeyPair(_ db: Database) throws -> IdentityKeyPair? {
        guard let row = try db.row("SELECT * FROM identity_keys WHERE id = 1") else { return nil }
        let t = Self.table
        let identityPublic: Data = try row.decode("identity_public", table: t)
        let signingPublic: Data = try row.decode("signing_public", table: t)
        return IdentityKeyPair(
            identityPublic: [UInt8](identityPublic),
            identityPrivate: try sealer.open(try row.decode("identity_private", table: t), table: t, column: "identity_private", rowID: "1"),
            signingPublic: [UInt8](signingPublic),
            signingPrivate: try sealer.open(try row.decode("signing_private", table: t), table: t, column: "signing_private", rowID: "1"),
            createdAt: StoreTime(microseconds: try row.decode("created_at", table: t))
        )
    }

    /// Stores the keys once; a device's identity never changes.
    /// - Throws: ``KeyStoreError/invalidTransition(_:id:from:to:)`` when keys exist already,
    ///   GRDB's `DatabaseError` for a public key that is not 32 bytes.
    public func storeIdentityKeyPair(_ keys: IdentityKeyPair, _ db: Database) throws {
        guard try db.count("SELECT COUNT(*) FROM identity_keys") == 0 else {
            throw KeyStoreError.invalidTransition(.identityKeys, id: "1", from: "stored", to: "replaced")
        }
        let t = Self.table
        try db.run(
            "INSERT INTO identity_keys (id, identity_public, identity_private, signing_public, signing_private, created_at) VALUES (1, ?, ?, ?, ?, ?)",
            [Data(keys.identityPublic), try sealer.seal(keys.identityPrivate, table: t, column: "identity_private", rowID: "1"),
             Data(keys.signingPublic), try sealer.seal(keys.signingPrivate, table: t, column: "signing_private", rowID: "1"),
             keys.createdAt.microseconds]
        )
    }

    /// The 104 bytes of the certificate this device publishes in its signed prekey record;
    /// `nil`: the zero certificate (nothing stored).
    /// - Throws: GRDB's `DatabaseError`.
    public func loadPublishedCertificate(_ db: Database) throws -> [UInt8]? {
        guard let row = try db.row("SELECT certificate FROM published_certificate WHERE id = 1") else { return nil }
        let bytes: Data = try row.decode("certificate", table: "published_certificate")
        return [UInt8](bytes)
    }

    /// Replaces the certificate to publish (`nil`: back to the zero certificate). Public bytes,
    /// stored unsealed; the caller checked their form.
    /// - Throws: GRDB's `DatabaseError` for a certificate that is not 104 bytes.
    public func storePublishedCertificate(_ certificate: [UInt8]?, at time: StoreTime, _ db: Database) throws {
        guard let certificate else {
            try db.run("DELETE FROM published_certificate")
            return
        }
        try db.run("""
            INSERT INTO published_certificate (id, certificate, updated_at) VALUES (1, ?, ?)
            ON CONFLICT (id) DO UPDATE SET certificate = excluded.certificate, updated_at = excluded.updated_at
            """, [Data(certificate), time.microseconds])
    }
}
