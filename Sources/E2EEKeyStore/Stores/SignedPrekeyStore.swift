import E2EECrypto
import Foundation
import GRDB

/// Signed prekeys (the current one and previous ones) and the X3DH ephemeral keys accepted
/// under each (the replay window: an accepted `EK_A` is kept until its signed prekey is wiped,
/// by a foreign-key cascade).
package struct SignedPrekeyStore: Sendable {
    static let table = "signed_prekeys"
    let sealer: Sealer

    /// A store sealing with `sealer`.
    public init(sealer: Sealer) { self.sealer = sealer }

    /// The prekey with `id`, current or previous.
    /// - Throws: ``KeyStoreError`` for a corrupt or tampered row, GRDB's `DatabaseError`.
    public func loadSignedPrekey(id: UInt32, _ db: Database) throws -> SignedPrekey? {
        try db.row("SELECT * FROM signed_prekeys WHERE id = ?", [Int64(id)]).map(decode)
    }

    /// The current prekey.
    /// - Throws: as ``loadSignedPrekey(id:_:)``.
    public func loadCurrentSignedPrekey(_ db: Database) throws -> SignedPrekey? {
        try db.row("SELECT * FROM signed_prekeys WHERE is_current = 1").map(decode)
    }

    /// Every retained prekey, oldest first.
    /// - Throws: as ``loadSignedPrekey(id:_:)``.
    public func loadSignedPrekeys(_ db: Database) throws -> [SignedPrekey] {
        try db.rows("SELECT * FROM signed_prekeys ORDER BY created_at, id").map(decode)
    }

    /// Makes `prekey` current; the previous current one is retired at its `createdAt`.
    /// - Throws: ``KeyStoreError/invalidTransition(_:id:from:to:)`` if the id is in use,
    ///   GRDB's `DatabaseError` for malformed public values.
    public func storeCurrentSignedPrekey(_ prekey: SignedPrekey, _ db: Database) throws {
        guard try db.count("SELECT COUNT(*) FROM signed_prekeys WHERE id = ?", [Int64(prekey.id)]) == 0 else {
            throw KeyStoreError.invalidTransition(.signedPrekey, id: String(prekey.id), from: "stored", to: "replaced")
        }
        try db.run("UPDATE signed_prekeys SET is_current = 0, retired_at = ? WHERE is_current = 1", [prekey.createdAt.microseconds])
        let rowID = String(prekey.id)
        try db.run(
            "INSERT INTO signed_prekeys (id, public_key, private_key, signature, is_current, created_at, retired_at) VALUES (?, ?, ?, ?, 1, ?, NULL)",
            [Int64(prekey.id), Data(prekey.publicKey), try sealer.seal(prekey.privateKey, table: Self.table, column: "private_key", rowID: rowID),
             Data(prekey.signature), prekey.createdAt.microseconds]
        )
    }

    /// Wipes a previous prekey and, by cascade, the ephemeral keys accepted under it.
    /// - Throws: ``KeyStoreError/invalidTransition(_:id:from:to:)`` for the current prekey.
    public func removeSignedPrekey(id: UInt32, _ db: Database) throws {
        guard try db.count("SELECT COUNT(*) FROM signed_prekeys WHERE id = ? AND is_current = 1", [Int64(id)]) == 0 else {
            throw KeyStoreError.invalidTransition(.signedPrekey, id: String(id), from: "current", to: "removed")
        }
        try db.run("DELETE FROM signed_prekeys WHERE id = ?", [Int64(id)])
    }

    /// `true` when `ephemeralPublic` was already accepted in a prekey message (a replay).
    /// - Throws: GRDB's `DatabaseError`.
    public func isEphemeralKeyAccepted(_ ephemeralPublic: [UInt8], _ db: Database) throws -> Bool {
        try db.count("SELECT COUNT(*) FROM accepted_ephemeral_keys WHERE ephemeral_public = ?", [Data(ephemeralPublic)]) > 0
    }

    /// Records an accepted `EK_A`, kept until signed prekey `signedPrekeyID` is wiped.
    /// - Throws: ``KeyStoreError/invalidTransition(_:id:from:to:)`` for a replay,
    ///   ``KeyStoreError/missingRecord(_:id:)`` for an unknown signed prekey.
    public func acceptEphemeralKey(_ ephemeralPublic: [UInt8], signedPrekeyID: UInt32, at time: StoreTime, _ db: Database) throws {
        guard try !isEphemeralKeyAccepted(ephemeralPublic, db) else {
            throw KeyStoreError.invalidTransition(.signedPrekey, id: String(signedPrekeyID), from: "ephemeral accepted", to: "accepted again")
        }
        guard try db.count("SELECT COUNT(*) FROM signed_prekeys WHERE id = ?", [Int64(signedPrekeyID)]) == 1 else {
            throw KeyStoreError.missingRecord(.signedPrekey, id: String(signedPrekeyID))
        }
        try db.run("INSERT INTO accepted_ephemeral_keys (ephemeral_public, signed_prekey_id, accepted_at) VALUES (?, ?, ?)",
                   [Data(ephemeralPublic), Int64(signedPrekeyID), time.microseconds])
    }

    private func decode(_ row: Row) throws -> SignedPrekey {
        let t = Self.table
        let id = try row.decodeUInt32("id", table: t)
        let publicKey: Data = try row.decode("public_key", table: t)
        let signature: Data = try row.decode("signature", table: t)
        let isCurrent: Int64 = try row.decode("is_current", table: t)
        let retired: Int64? = try row.decodeIfPresent("retired_at", table: t)
        return SignedPrekey(
            id: id, publicKey: [UInt8](publicKey),
            privateKey: try sealer.open(try row.decode("private_key", table: t), table: t, column: "private_key", rowID: String(id)),
            signature: [UInt8](signature), isCurrent: isCurrent == 1,
            createdAt: StoreTime(microseconds: try row.decode("created_at", table: t)),
            retiredAt: retired.map { StoreTime(microseconds: $0) }
        )
    }
}
