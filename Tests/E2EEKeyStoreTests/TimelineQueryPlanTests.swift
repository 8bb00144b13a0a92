import E2EECrypto
@_spi(StoreInternals) @testable import E2EEKeyStore
import Foundation
import GRDB
import Testing

/// How the product's queries on the timeline run: which index each one seeks, and that none of
/// them walks the whole timeline.
@Suite struct TimelineQueryPlanTests {
    /// SQLite's plan of `sql` (every parameter NULL), one line per step.
    static func plan(_ sql: String, _ db: Database) throws -> [String] {
        let parameters = sql.filter { $0 == "?" }.count
        return try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN " + sql, arguments: StatementArguments([DatabaseValue?](repeating: nil, count: parameters)))
            .map { $0["detail"] as String? ?? "" }
    }

    /// Whether a plan reads every row of the timeline (`SCAN timeline` or `SCAN t`, without an
    /// index that only holds some rows).
    static func scansTheTimeline(_ plan: [String]) -> Bool {
        plan.contains { $0 == "SCAN timeline" || $0 == "SCAN t" || $0.hasPrefix("SCAN timeline USING INDEX") || $0.hasPrefix("SCAN t USING INDEX") }
    }

    /// The timeline's indexes since `v14`, each with a product query that seeks it.
    static let indexSeekers: [String: String] = [
        "timeline_page": TimelineStore.pageBeforeSQL,
        "timeline_by_channel_content": KeyStore.contentLookupSQL,
        "timeline_payload_key": KeyStore.payloadUseSQL,
        "timeline_tombstones": KeyStore.tombstoneSQL,
        // v24: the partial index of transferred rows, probed before a page looks up labels.
        "timeline_transferred": KeyStore.anyTransferredSQL,
    ]

    @Test func theTimelineHasOnlyIndexesThatPagesDedupeAndTombstonesSeek() async throws {
        let store = try KeyStore.inMemory()
        // From the schema itself: GRDB's index list leaves out expression indexes.
        let indexes = try await store.read { db in
            try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'timeline' AND sql IS NOT NULL")
        }
        #expect(Set(indexes) == Set(Self.indexSeekers.keys))
        #expect(!indexes.contains("timeline_state"))
        for (index, sql) in Self.indexSeekers {
            let plan = try await store.read { db in try Self.plan(sql, db) }
            #expect(plan.contains { $0.contains("USING INDEX \(index)") || $0.contains("USING COVERING INDEX \(index)") }, "\(index): \(plan)")
        }
    }

    @Test func pagesDedupeAndTombstoneProbesSeekTheirIndexWithoutWalkingTheTimeline() async throws {
        let store = try KeyStore.inMemory()
        let expected: [(String, String)] = [
            (TimelineStore.pageBeforeSQL, "timeline_page"),
            (TimelineStore.newestPageSQL, "timeline_page"),
            (TimelineStore.byIDSQL, "sqlite_autoindex_timeline_1"),
            (KeyStore.contentLookupSQL, "timeline_by_channel_content"),
            (KeyStore.payloadUseSQL, "timeline_payload_key"),
            (KeyStore.tombstoneTargetSQL, "timeline_payload_key"),
            (KeyStore.tombstoneSQL, "timeline_tombstones"),
            // The partial index holds tombstones only: scanning it is one probe.
            (KeyStore.anyTombstoneSQL, "timeline_tombstones"),
        ]
        for (sql, index) in expected {
            let plan = try await store.read { db in try Self.plan(sql, db) }
            #expect(plan.contains { $0.contains(index) }, "\(sql): \(plan)")
            #expect(!plan.contains { $0.contains("TEMP B-TREE") }, "\(sql): \(plan)")
            #expect(!Self.scansTheTimeline(plan) || index == "timeline_tombstones", "\(sql): \(plan)")
        }
    }

    @Test func lookupsOfEveryWidthSeekTheirIndex() async throws {
        let store = try KeyStore.inMemory()
        #expect(KeyStore.receivedLookupSQLs.count == KeyStore.lookupWidths.count && KeyStore.contentLookupSQLs.count == KeyStore.lookupWidths.count
                && KeyStore.storedHashLookupSQLs.count == KeyStore.lookupWidths.count)
        for ((byID, hashByID), byContent) in zip(zip(KeyStore.receivedLookupSQLs, KeyStore.storedHashLookupSQLs), KeyStore.contentLookupSQLs) {
            for (sql, index) in [(byID, "sqlite_autoindex_timeline_1"), (hashByID, "sqlite_autoindex_timeline_1"), (byContent, "timeline_by_channel_content")] {
                let plan = try await store.read { db in try Self.plan(sql, db) }
                #expect(plan.contains { $0.contains(index) }, "\(sql): \(plan)")
                #expect(!Self.scansTheTimeline(plan), "\(sql): \(plan)")
            }
        }
    }

    @Test func thePendingQueueIsWalkedNotTheTimeline() async throws {
        let store = try KeyStore.inMemory()
        let queries = [
            KeyStore.pendingReceivesSQL(waitingFor: nil, after: true, limited: true),
            KeyStore.pendingReceivesSQL(waitingFor: nil, after: false, limited: true),
            KeyStore.pendingReceivesSQL(waitingFor: 3, after: false, limited: false),
            PendingCiphertextStore.countSQL,
            KeyStore.departedPendingSQL,
        ]
        let byWait = KeyStore.pendingReceivesSQL(waitingFor: 3, after: false, limited: false)
        for sql in queries {
            let plan = try await store.read { db in try Self.plan(sql, db) }
            // Rows waiting for named keys are sought in `pending_by_wait` (v15); the rest walk the queue.
            let first = sql == byWait ? "SEARCH p USING INDEX pending_by_wait" : "SCAN p"
            #expect(plan.first?.hasPrefix(first) == true, "\(plan)")
            #expect(plan.contains { $0.hasPrefix("SEARCH t USING INDEX sqlite_autoindex_timeline_1") }, "\(plan)")
            #expect(!Self.scansTheTimeline(plan), "\(plan)")
        }
    }
}
