import GRDB

extension StoreSchema {
    /// `v26`: when this device, with no user key of its own, was told once to link
    /// (docs/spec/protocol.md §10.25, `linkSuggested`): `store_metadata.link_suggested_at`, unix
    /// seconds, `NULL` until then — so the suggestion is made once per store, not once per launch.
    static func recordLinkSuggestion(_ db: Database) throws {
        try db.execute(sql: "ALTER TABLE store_metadata ADD COLUMN link_suggested_at INTEGER")
    }
}
