import E2EECrypto
@_spi(StoreInternals) @testable import E2EEKeyStore
import Testing

/// docs/spec/protocol.md §10.8: a message from a device that is linked now no longer waits — the
/// re-drive that follows lets it through — so §10.8's bounds neither refuse nor count it, however
/// long it waited (attack K9: a key change accepted 36 days after L's messages arrived).
@Suite struct ReleasedWaitStoreTests {
    private let day: Int64 = 86_400

    private func wait(_ store: KeyStore, _ id: String, device: String, at micros: Int64) async throws {
        var row = Fixtures.message(id, at: micros, state: .pendingKey)
        row.senderDeviceID = device
        _ = try await store.storeReceiveBatch([ReceiveWrites.pending(row, waitingFor: "unlinked:user-b/\(device)", receivedAt: Fixtures.time(0))])
    }

    private func settle(_ store: KeyStore, now: Int64, perDevice: Int = 1_000) async throws -> [String] {
        try await store.settleUnlinkedWaits(reason: "unlinked_device", now: now, maximumAge: 30 * day, keptAfterDueChange: 7 * day,
                                            perDevice: perDevice, perUser: 5_000).map(\.messageID)
    }

    @Test("a row whose device is linked now is neither refused after 30 days nor counted against the caps; an unlinked one is")
    func linkedDeviceReleasesItsRows() async throws {
        let store = try KeyStore.inMemory()
        try await wait(store, "linked0", device: "d-linked", at: 100)
        try await wait(store, "linked1", device: "d-linked", at: 101)
        try await wait(store, "unlinked0", device: "d-other", at: 102)
        try await store.write { db in
            try store.contactKeyStore.storeLinks([DeviceLink(userID: "user-b", deviceID: "d-linked", key: [UInt8](repeating: 2, count: 32),
                                                             epoch: 1, notAfter: 1_000, linked: true)], db)
        }
        #expect(try await settle(store, now: 36 * day) == ["unlinked0"])
        #expect(try await store.message(id: "linked0")?.state == .pendingKey)
        #expect(try await settle(store, now: 36 * day, perDevice: 1).isEmpty, "released rows count against no cap")
    }
}
