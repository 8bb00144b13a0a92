import E2EEDevServer
@_spi(StoreInternals) import E2EEKeyStore
@testable import E2EEMessaging
import Foundation
import GRDB
import Testing

extension IntegrationTests {
    /// Issue 42 item 8: requests nobody accepted cost nothing per catch-up. Their waiting
    /// envelopes are neither re-driven nor rewritten until an acceptance can release them.
    @Suite("Idle requests")
    struct IdleRequestCostTests {
        @Test("a DM request with 30 waiting messages: three idle catch-ups rewrite no pending row; accepting releases them all")
        func idleCatchUpsRewriteNothing() async throws {
            try await MessagingHarness.with { harness in
                let alice = try await harness.register("alice")
                let bob = try await harness.register("bob")
                let dm = try await alice.openDirectMessage(with: bob.userID)
                for index in 0..<30 { try await alice.send(text: "waiting \(index)", to: dm.id) }
                await alice.waitForOutbox()
                try await bob.sync()
                #expect(try await bob.store.pendingCount() == 30)

                try await Self.countPendingWrites(in: bob.store)
                for _ in 0..<3 { try await bob.sync() }
                let written = try await Self.pendingWrites(in: bob.store)
                #expect(written.rows == 0, "idle catch-ups rewrote waiting envelopes: \(written.rows) rows, \(written.bytes) bytes of envelopes")

                _ = try await bob.acceptChannel(dm.id)
                let read = try await readableTexts(bob, dm.id)
                #expect(read.count == 30 && read.contains("waiting 29"))
                #expect(try await bob.store.pendingCount() == 0)
            }
        }

        /// Counts every insert or update of a pending row from now on (a trigger in the store file).
        static func countPendingWrites(in store: KeyStore) async throws {
            try await store.write { db in
                try db.execute(sql: """
                    CREATE TABLE test_pending_writes (n INTEGER NOT NULL, bytes INTEGER NOT NULL);
                    INSERT INTO test_pending_writes VALUES (0, 0);
                    CREATE TRIGGER test_pending_insert AFTER INSERT ON pending_ciphertexts
                        BEGIN UPDATE test_pending_writes SET n = n + 1, bytes = bytes + length(new.content); END;
                    CREATE TRIGGER test_pending_update AFTER UPDATE ON pending_ciphertexts
                        BEGIN UPDATE test_pending_writes SET n = n + 1, bytes = bytes + length(new.content); END;
                    CREATE TRIGGER test_pending_row AFTER UPDATE ON timeline WHEN old.state = 'pending_key'
                        BEGIN UPDATE test_pending_writes SET n = n + 1; END;
                    """)
            }
        }

        /// Pending rows written since ``countPendingWrites(in:)``.
        static func pendingWrites(in store: KeyStore) async throws -> (rows: Int, bytes: Int) {
            try await store.read { db in
                let row = try Row.fetchOne(db, sql: "SELECT n, bytes FROM test_pending_writes")
                return (row?["n"] ?? -1, row?["bytes"] ?? -1)
            }
        }
    }
}
