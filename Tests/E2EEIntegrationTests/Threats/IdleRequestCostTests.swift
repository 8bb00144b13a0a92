import E2EECrypto
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

        @Test("a stranger's group request holds at most 4 MiB of waiting envelopes; what comes over is recorded as not kept")
        func requestWaitingBytesAreBounded() async throws {
            try await MessagingHarness.with { harness in
                let bob = try await harness.register("bob")
                let mallory = try await harness.register("mallory")
                let group = try await mallory.createGroup(name: "spam", members: [bob.userID])
                let text = String(repeating: "x", count: 60_000)
                for _ in 0..<60 { try await mallory.send(text: text, to: group.id) }
                await mallory.waitForOutbox()
                try await bob.sync()

                let waiting = try await bob.store.read { db in
                    try Int.fetchOne(db, sql: "SELECT COALESCE(SUM(length(content)), 0) FROM pending_ciphertexts WHERE waiting_for = ?",
                                     arguments: ["request:\(group.id.rawValue)"]) ?? 0
                }
                #expect(waiting > 0 && waiting <= ProtocolLimits.maxRequestPendingBytes, "\(waiting) bytes wait in one request")
                let rows = try await bob.timeline(channelID: group.id, limit: 100)
                let dropped = rows.filter { $0.state == .undecryptable(.requestOverflow) }.count
                #expect(dropped > 0 && dropped + rows.filter { $0.state == .pending }.count == 60)

                _ = try await bob.acceptChannel(group.id)
                try await bob.sync()
                let after = try await bob.timeline(channelID: group.id, limit: 100)
                #expect(after.filter { $0.state == .decrypted }.count == 60 - dropped, "the kept messages are read once accepted")
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
