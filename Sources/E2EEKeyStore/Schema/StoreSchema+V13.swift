import GRDB

extension StoreSchema {
    /// `v13`: the timeline keeps only the indexes its reads seek — `timeline_page` (pages, time
    /// ranges, the departure point, a DM request's candidate), the primary key, and for dedupe
    /// `timeline_by_content_prefix`, `timeline_payload_id` (also the (sender user, payload id)
    /// rule) and `timeline_tombstones` (a sender's deletes).
    ///
    /// `timeline_state` (`channel_id, state`, from `v2`) goes: no product query seeks it (the
    /// pending re-drive walks the queue and looks rows up by key), only a count by state that
    /// tests and benchmarks make, which walks the channel in `timeline_page` instead. Every
    /// received row wrote one more index entry for it. Like every migration it runs inside the
    /// migrator's transaction: a failure leaves the file at `v12`.
    static func dropUnusedTimelineIndexes(_ db: Database) throws {
        try db.execute(sql: "DROP INDEX timeline_state")
    }
}
