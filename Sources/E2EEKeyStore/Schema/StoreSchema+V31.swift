import GRDB

extension StoreSchema {
    /// `v31`: the history change log's triggers (`v24`) exist only while a transfer's snapshot
    /// mark is open (``HistoryChangeLog``): dropped here unless a mark is open now. Any trigger on
    /// `timeline` cost every received row's insert, logging or not.
    static func logHistoryChangesOnlyWhileMarked(_ db: Database) throws {
        try HistoryChangeLog.matchTriggersToMarks(db)
    }
}
