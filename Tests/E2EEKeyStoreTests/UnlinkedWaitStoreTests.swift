import E2EECrypto
@_spi(StoreInternals) @testable import E2EEKeyStore
import Testing

/// docs/spec/protocol.md §10.8: the bounds of messages waiting for a device to be linked.
@Suite struct UnlinkedWaitStoreTests {
    private let day: Int64 = 86_400

    /// `count` messages of `device` (user `user-b`) waiting to be linked, received at `receivedAt` (unix seconds).
    private func wait(_ store: KeyStore, prefix: String, device: String, count: Int, receivedAt: Int64, at start: Int64 = 100) async throws {
        let writes = (0..<count).map { index in
            var row = Fixtures.message("\(prefix)\(index)", at: start + Int64(index), state: .pendingKey)
            row.senderDeviceID = device
            return ReceiveWrites.pending(row, waitingFor: "unlinked:user-b/\(device)", receivedAt: Fixtures.time(receivedAt))
        }
        _ = try await store.storeReceiveBatch(writes)
    }

    private func settle(_ store: KeyStore, now: Int64, perDevice: Int = 1_000, perUser: Int = 5_000) async throws -> [String] {
        try await store.settleUnlinkedWaits(reason: "unlinked_device", now: now, maximumAge: 30 * day, keptAfterDueChange: 7 * day,
                                            perDevice: perDevice, perUser: perUser).map(\.messageID)
    }

    @Test("a message waiting over 30 days is settled as unlinked_device; younger ones keep waiting")
    func thirtyDays() async throws {
        let store = try KeyStore.inMemory()
        try await wait(store, prefix: "old", device: "d1", count: 1, receivedAt: 0)
        try await wait(store, prefix: "new", device: "d1", count: 1, receivedAt: 20 * day, at: 500)
        #expect(try await settle(store, now: 31 * day) == ["old0"])
        #expect(try await store.message(id: "old0")?.state == .undecryptable(reason: "unlinked_device"))
        #expect(try await store.message(id: "new0")?.state == .pendingKey)
        #expect(try await settle(store, now: 31 * day).isEmpty, "settled once")
    }

    @Test("a due key change keeps the user's waiting messages until 7 days after it became due")
    func keptByDueChange() async throws {
        let store = try KeyStore.inMemory()
        try await wait(store, prefix: "m", device: "d1", count: 1, receivedAt: 0)
        try await store.write { db in
            try store.contactKeyStore.storeStanding(ContactKeyStanding(
                userID: "user-b", state: .pinned, pinnedKey: [UInt8](repeating: 1, count: 32),
                pendingChange: .init(to: [UInt8](repeating: 2, count: 32), dueAt: 29 * day, vouched: false, wasVerified: false)), db)
        }
        #expect(try await settle(store, now: 35 * day).isEmpty)
        #expect(try await settle(store, now: 36 * day + 1) == ["m0"])
    }

    @Test("per device the oldest beyond the cap go; a full user loses the oldest of its fullest device")
    func caps() async throws {
        let store = try KeyStore.inMemory()
        try await wait(store, prefix: "a", device: "d1", count: 5, receivedAt: day, at: 100)
        try await wait(store, prefix: "b", device: "d2", count: 2, receivedAt: day, at: 200)
        #expect(try await settle(store, now: 2 * day, perDevice: 4, perUser: 100) == ["a0"])
        // d1 holds 4, d2 2: a cap of 5 per user takes d1's oldest left.
        #expect(try await settle(store, now: 2 * day, perDevice: 4, perUser: 5) == ["a1"])
    }
}
