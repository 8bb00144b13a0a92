import E2EECrypto
@_spi(StoreInternals) @testable import E2EEKeyStore
import Testing

/// docs/spec/protocol.md §10.8's last sentence: a prekey that a message waiting under
/// `unlinked:` names is kept while the message waits, at most 30 days past its own wipe date.
/// The store asks the caller which prekeys a waiting ciphertext names; here the content is a
/// stand-in, `"names:<spk>,<opk>"`.
@Suite struct WaitingPrekeyRetentionStoreTests {
    private static let day: Int64 = 86_400
    private static let grace: Int64 = 30 * day

    /// Reads `"names:<spk>,<opk>"`.
    private static let named: @Sendable (String) -> NamedPrekeys? = { content in
        guard content.hasPrefix("names:") else { return nil }
        let ids = content.dropFirst(6).split(separator: ",").compactMap { UInt32($0) }
        guard ids.count == 2 else { return nil }
        return NamedPrekeys(signedPrekeyIDs: [ids[0]], oneTimePrekeyIDs: ids[1] == 0 ? [] : [ids[1]])
    }

    /// SPK 7 current at 0, replaced by 8 on day 1, 8 by 9 on day 2; OPKs 1 and 2 consumed on day 1.
    private func keys() async throws -> KeyStore {
        let store = try KeyStore.inMemory()
        for (id, created) in [(UInt32(7), Int64(0)), (8, Self.day), (9, 2 * Self.day)] {
            try await store.rotateSignedPrekey(SignedPrekey(id: id, publicKey: Fixtures.bytes(32, UInt8(id)), privateKey: SecretBytes(copying: Fixtures.bytes(32, 2)),
                                                            signature: Fixtures.bytes(64, 3), isCurrent: true, createdAt: Fixtures.time(created)))
        }
        _ = try await store.addOneTimePrekeys(count: 2, now: Fixtures.time(0)) { id in
            OneTimePrekeyMaterial(publicKey: Fixtures.bytes(32, UInt8(id)), privateKey: SecretBytes(copying: Fixtures.bytes(32, UInt8(id + 50))))
        }
        for id in [UInt32(1), 2] { try await store.consumeOneTimePrekey(id: id, at: Fixtures.time(Self.day)) }
        return store
    }

    /// A pending row `id` with `content`, waiting for `waitingFor`.
    private func wait(_ store: KeyStore, _ id: String, content: String, waitingFor: String) async throws {
        var row = Fixtures.message(id, at: 100, state: .pendingKey)
        row.senderDeviceID = "d1"
        _ = try await store.storeReceiveBatch([ReceiveWrites.pending(row, content: content, waitingFor: waitingFor, receivedAt: Fixtures.time(2 * Self.day))])
    }

    /// Retention at `now` (unix seconds): SPKs 30 days after replacement, OPKs 7 days after consumption.
    @discardableResult
    private func wipe(_ store: KeyStore, at now: Int64) async throws -> RetentionWipe {
        try await store.wipeRetained(signedPrekeysRetiredBefore: Fixtures.time(now - 30 * Self.day), oneTimePrekeysConsumedBefore: Fixtures.time(now - 7 * Self.day),
                                     senderKeyStates: [], waitingGrace: Self.grace, named: Self.named)
    }

    private func signedIDs(_ store: KeyStore) async throws -> [UInt32] { try await store.signedPrekeys().map(\.id).sorted() }

    private func oneTimeIDs(_ store: KeyStore) async throws -> [UInt32] {
        try await store.read { db in try store.oneTimePrekeyStore.loadOneTimePrekeys(state: .consumed, db) }.map(\.id).sorted()
    }

    @Test("prekeys an unlinked wait names outlive their wipe date by at most 30 days; other waits keep nothing")
    func keptWhileWaitingAtMostThirtyDays() async throws {
        let store = try await keys()
        try await wait(store, "unlinked", content: "names:7,1", waitingFor: "unlinked:user-b/d1")
        try await wait(store, "session", content: "names:8,2", waitingFor: "session:user-b/d2")

        // Day 37: SPK 7 (replaced day 1) and 8 (day 2) are past 30 days, OPKs 1 and 2 past 7: only
        // what the unlinked wait names stays.
        #expect(try await wipe(store, at: 37 * Self.day) == RetentionWipe(signedPrekeys: 1, oneTimePrekeys: 1, senderKeyStates: 0))
        #expect(try await signedIDs(store) == [7, 9])
        #expect(try await oneTimeIDs(store) == [1])

        // OPK 1's own wipe date was day 8: kept until exactly day 38, gone one second later.
        #expect(try await wipe(store, at: 38 * Self.day).oneTimePrekeys == 0)
        #expect(try await wipe(store, at: 38 * Self.day + 1).oneTimePrekeys == 1)
        #expect(try await oneTimeIDs(store).isEmpty)

        // SPK 7's own wipe date was day 31: kept until exactly day 61, gone one second later,
        // though the message still waits.
        #expect(try await wipe(store, at: 61 * Self.day).signedPrekeys == 0)
        #expect(try await wipe(store, at: 61 * Self.day + 1).signedPrekeys == 1)
        #expect(try await signedIDs(store) == [9])
        #expect(try await store.message(id: "unlinked")?.state == .pendingKey)
    }

    @Test("once the waiting message leaves the queue, the prekeys it named go at the next run")
    func goneWithTheWait() async throws {
        let store = try await keys()
        try await wait(store, "unlinked", content: "names:7,1", waitingFor: "unlinked:user-b/d1")
        try await wipe(store, at: 37 * Self.day)
        #expect(try await signedIDs(store) == [7, 9])

        _ = try await store.settleUnlinkedWaits(reason: "unlinked_device", now: 40 * Self.day, maximumAge: 30 * Self.day, keptAfterDueChange: 7 * Self.day,
                                                perDevice: 1_000, perUser: 5_000)
        #expect(try await wipe(store, at: 37 * Self.day) == RetentionWipe(signedPrekeys: 1, oneTimePrekeys: 1, senderKeyStates: 0))
        #expect(try await signedIDs(store) == [9])
        #expect(try await oneTimeIDs(store).isEmpty)
    }

    @Test("content that names nothing (not a prekey message, unreadable) keeps nothing, and the current prekey is never wiped")
    func unreadableKeepsNothing() async throws {
        let store = try await keys()
        try await wait(store, "garbage", content: "not an envelope", waitingFor: "unlinked:user-b/d1")
        try await wait(store, "current", content: "names:9,0", waitingFor: "unlinked:user-b/d1")
        #expect(try await wipe(store, at: 90 * Self.day) == RetentionWipe(signedPrekeys: 2, oneTimePrekeys: 2, senderKeyStates: 0))
        #expect(try await signedIDs(store) == [9])
    }
}
