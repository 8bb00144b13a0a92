import E2EECrypto
@_spi(StoreInternals) @testable import E2EEKeyStore
import Foundation
import Testing

/// Issue 16, item 3 at the store: `wipeExpiredKeys` wipes an idle receiving sender-key state
/// only once a later state of another `key_id` of the same (channel, sender device) exists.
@Suite struct SenderKeyRetentionStoreTests {
    @Test func theNewestStateOfASenderDeviceIsNeverWipedHoweverIdle() async throws {
        let store = try KeyStore.inMemory()
        func key(_ keyID: UInt32, device: String = "device-b", installed: Int64) -> ReceiverSenderKey {
            ReceiverSenderKey(address: SenderKeyAddress(channelID: "channel-1", senderDeviceID: device, keyID: keyID), senderUserID: "user-b",
                              state: Fixtures.secret("state \(keyID)"), createdAt: Fixtures.time(installed), updatedAt: Fixtures.time(installed))
        }
        let keys = [key(1, installed: 1), key(2, installed: 2), key(3, device: "device-c", installed: 1)]
        try await store.write { db in for key in keys { try store.receiverSenderKeyStore.storeReceiverSenderKey(key, db) } }
        let wiped = try await store.wipeExpiredKeys(consumedBefore: Fixtures.time(0), senderKeysIdleSince: Fixtures.time(100))
        #expect(wiped.senderKeys == 1)
        #expect(try await store.receiverSenderKey(keys[0].address) == nil, "idle, and key 2 of the same device is later")
        #expect(try await store.receiverSenderKey(keys[1].address) != nil, "the newest of its device")
        #expect(try await store.receiverSenderKey(keys[2].address) != nil, "the only one of its device")
    }
}
