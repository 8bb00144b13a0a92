import E2EECrypto
import Foundation
import GRDB

/// The account row and its tokens.
package struct AccountStore: Sendable {
    static let table = "account"
    let sealer: Sealer

    /// A store sealing with `sealer`.
    public init(sealer: Sealer) { self.sealer = sealer }

    /// The account, if one was saved.
    /// - Throws: ``KeyStoreError`` for a corrupt or tampered row, GRDB's `DatabaseError`.
    public func loadAccount(_ db: Database) throws -> AccountRecord? {
        guard let row = try db.row("SELECT * FROM account WHERE id = 1") else { return nil }
        let t = Self.table
        return AccountRecord(
            serverURL: try row.decode("server_url", table: t), userID: try row.decode("user_id", table: t),
            deviceID: try row.decode("device_id", table: t),
            accessToken: try sealer.openIfPresent(try row.decodeIfPresent("access_token", table: t), table: t, column: "access_token", rowID: "1"),
            refreshToken: try sealer.openIfPresent(try row.decodeIfPresent("refresh_token", table: t), table: t, column: "refresh_token", rowID: "1"),
            updatedAt: StoreTime(microseconds: try row.decode("updated_at", table: t))
        )
    }

    /// Saves the account (replacing the previous row).
    /// - Throws: GRDB's `DatabaseError`.
    public func storeAccount(_ account: AccountRecord, _ db: Database) throws {
        let t = Self.table
        try db.run(
            "INSERT OR REPLACE INTO account (id, server_url, user_id, device_id, access_token, refresh_token, updated_at) VALUES (1, ?, ?, ?, ?, ?, ?)",
            [account.serverURL, account.userID, account.deviceID,
             try sealer.sealIfPresent(account.accessToken, table: t, column: "access_token", rowID: "1"),
             try sealer.sealIfPresent(account.refreshToken, table: t, column: "refresh_token", rowID: "1"),
             account.updatedAt.microseconds]
        )
    }

    /// Replaces the tokens (`nil` wipes them: a clean logout keeps the keys).
    /// - Throws: ``KeyStoreError/missingRecord(_:id:)`` when no account is saved.
    public func storeTokens(access: SecretBytes?, refresh: SecretBytes?, at time: StoreTime, _ db: Database) throws {
        let t = Self.table
        try db.run(
            "UPDATE account SET access_token = ?, refresh_token = ?, updated_at = ? WHERE id = 1",
            [try sealer.sealIfPresent(access, table: t, column: "access_token", rowID: "1"),
             try sealer.sealIfPresent(refresh, table: t, column: "refresh_token", rowID: "1"), time.microseconds]
        )
        guard db.changesCount == 1 else { throw KeyStoreError.missingRecord(.account, id: "1") }
    }
}
