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
}
