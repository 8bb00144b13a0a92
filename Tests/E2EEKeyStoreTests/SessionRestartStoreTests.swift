import E2EECrypto
@_spi(StoreInternals) @testable import E2EEKeyStore
import Foundation
import GRDB
import Testing

/// At the store (`v18`): a ratchet restart asked with the refusal that asks for it, done with
/// the session it installs, and the hourly limit kept in the file (docs/spec/protocol.md §3.17).
@Suite struct SessionRestartStoreTests {
    private static let hour = ProtocolLimits.minRatchetRestartIntervalSeconds

    private func restart(_ store: KeyStore) async throws -> SessionRestart? {
        try await store.read { db in try store.sessionStore.loadRestart(userID: "user-b", deviceID: "device-b", db) }
    }

    private func refused(_ id: String, at seconds: Int64) -> ReceiveWrite {
        var row = Fixtures.message(id, at: seconds * 1_000_000, state: .undecryptable(reason: "too_far_ahead"))
        row.senderUserID = "user-b"
        row.senderDeviceID = "device-b"
        var write = ReceiveWrites.outcome(row)
        write.sessionRestart = SessionRestartRequest(userID: "user-b", deviceID: "device-b", requestedAt: Fixtures.time(seconds))
        return write
    }

    @Test("a refusal's restart request commits with its row, or not at all; a second request keeps the first one's time")
    func requestCommitsWithTheRefusal() async throws {
        let store = try KeyStore.inMemory()
        // In a batch that fails (an identity that differs from its pin), neither is stored.
        _ = try await store.recordIdentity(RemoteIdentityClaim(userID: "user-c", deviceID: "device-c", identityBlob: Fixtures.bytes(65, 1)))
        var conflicting = Fixtures.message("m2", at: 2)
        conflicting.senderUserID = "user-c"
        let failing = ReceiveWrites.decrypted(conflicting, identity: RemoteIdentityClaim(userID: "user-c", deviceID: "device-c", identityBlob: Fixtures.bytes(65, 2)))
        await #expect(throws: KeyStoreError.self) { try await store.storeReceiveBatch([self.refused("m1", at: 10), failing]) }
        #expect(try await store.receivedMessages(ids: ["m1"]).isEmpty)
        #expect(try await restart(store) == nil)

        #expect(try await store.storeReceiveBatch([refused("m1", at: 10)]) == [.stored])
        #expect(try await restart(store) == SessionRestart(userID: "user-b", deviceID: "device-b", requestedAt: Fixtures.time(10), restartedAt: nil))
        _ = try await store.storeReceiveBatch([refused("m3", at: 20)])
        #expect(try await restart(store)?.requestedAt == Fixtures.time(10))
    }

    @Test("a refused edit asks too, with its refused-input record")
    func refusedEditAsks() async throws {
        let store = try KeyStore.inMemory()
        var write = ReceiveWrite(action: .refused(RefusedInput(channelID: "channel-1", messageID: "m1", kind: .edit, reason: "too_far_ahead",
                                                               contentHash: nil, seenAt: Fixtures.time(5))),
                                 facts: ReceivedFacts(kind: .message))
        write.sessionRestart = SessionRestartRequest(userID: "user-b", deviceID: "device-b", requestedAt: Fixtures.time(5))
        _ = try await store.storeReceiveBatch([write])
        #expect(try await restart(store)?.requestedAt == Fixtures.time(5))
    }

    @Test("a restart installs the new session, archives the old one and answers the request in one write; the time survives reopening")
    func restartArchivesAndPersists() async throws {
        let dir = try TemporaryDirectory()
        let key = StoreKey.random()
        let store = try KeyStore.open(at: dir.storeURL, key: key)
        let old = try await store.installSession(userID: "user-b", deviceID: "device-b", state: Fixtures.secret("old"), at: Fixtures.time(1))
        _ = try await store.storeReceiveBatch([refused("m1", at: 10)])
        let new = try await store.restartSession(userID: "user-b", deviceID: "device-b", state: Fixtures.secret("new"), at: Fixtures.time(20))
        let sessions = try await store.read { db in try store.sessionStore.loadSessions(userID: "user-b", deviceID: "device-b", db) }
        #expect(sessions.map(\.id) == [new, old])
        #expect(sessions.map(\.isCurrent) == [true, false])
        #expect(Fixtures.text(sessions.first?.state) == "new")
        try store.close()

        let reopened = try KeyStore.open(at: dir.storeURL, key: key)
        let stored = try #require(try await restart(reopened))
        #expect(stored == SessionRestart(userID: "user-b", deviceID: "device-b", requestedAt: nil, restartedAt: Fixtures.time(20)))
        #expect(!stored.isDue(at: Fixtures.time(20 + Self.hour * 5)), "nothing asked")
        try reopened.close()
    }

    @Test("a restart is due when asked and an hour has passed since the last on this device's clock (or the clock went back)")
    func dueOncePerHour() {
        func state(requested: Int64?, restarted: Int64?) -> SessionRestart {
            SessionRestart(userID: "u", deviceID: "d", requestedAt: requested.map(Fixtures.time), restartedAt: restarted.map(Fixtures.time))
        }
        #expect(state(requested: 100, restarted: nil).isDue(at: Fixtures.time(100)))
        #expect(!state(requested: nil, restarted: nil).isDue(at: Fixtures.time(100)))
        #expect(!state(requested: 200, restarted: 100).isDue(at: Fixtures.time(100 + Self.hour - 1)))
        #expect(state(requested: 200, restarted: 100).isDue(at: Fixtures.time(100 + Self.hour)))
        #expect(state(requested: 200, restarted: 10_000).isDue(at: Fixtures.time(100)), "a last restart dated after now")
        // Stored times are read from the file: extreme values decide, never trap.
        #expect(SessionRestart(userID: "u", deviceID: "d", requestedAt: Fixtures.time(1), restartedAt: StoreTime(microseconds: .min))
            .isDue(at: StoreTime(microseconds: .max)))
    }

    @Test("a row whose times are not integers is a typed error, not a crash")
    func corruptRowIsTyped() async throws {
        let store = try KeyStore.inMemory()
        try await store.write { db in
            try db.execute(sql: "INSERT INTO session_restarts (remote_user_id, remote_device_id, requested_at) VALUES ('user-b', 'device-b', 'soon')")
        }
        await #expect(throws: KeyStoreError.corruptColumn(table: "session_restarts", column: "requested_at")) { try await self.restart(store) }
    }
}
