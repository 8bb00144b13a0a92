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

    @Test func thePendingQueueIsWalkedNotTheTimeline() async throws {
        let store = try KeyStore.inMemory()
        let queries = [
            KeyStore.pendingReceivesSQL(waitingFor: nil, after: true, limited: true),
            KeyStore.pendingReceivesSQL(waitingFor: nil, after: false, limited: true),
            KeyStore.pendingReceivesSQL(waitingFor: 3, after: false, limited: false),
            PendingCiphertextStore.countSQL,
            KeyStore.departedPendingSQL,
        ]
        for sql in queries {
            let plan = try await store.read { db in try Self.plan(sql, db) }
            #expect(plan.first?.hasPrefix("SCAN p") == true, "\(plan)")
            #expect(plan.contains { $0.hasPrefix("SEARCH t USING INDEX sqlite_autoindex_timeline_1") }, "\(plan)")
            #expect(!Self.scansTheTimeline(plan), "\(plan)")
        }
    }
}
