import E2EECrypto
import E2EEDevServer
import E2EEKeyStore
import E2EEMessaging
import Foundation
import Testing

extension IntegrationTests {
    /// docs/spec/protocol.md §11.3, §11.5 over real components: the certificate a listing
    /// showed for a contact is kept, so a primary's snapshot carries the proof of the key it
    /// pinned, and a new device of the same user imports that pin.
    @Suite("Trust part of a transfer from a real listing")
    struct TransferredTrustTests {
        @Test("Alice pinned Bob's K1 from the DevServer's listing: her snapshot proves it, and her new device's store takes the pin")
        func pinFromARealListingTravels() async throws {
            try await MessagingHarness.with { harness in
                let scene = try await KeyedContact.make(harness)
                let snapshot = try await scene.alice.store.trustSnapshot()
                let bob = scene.bob.rawValue
                let keys = snapshot.records.compactMap { record -> ContactKeyRecord? in
                    guard case .contactKey(let key) = record, key.userID.text == bob else { return nil }
                    return key
                }
                #expect(keys.count == 1)
                #expect(keys.first?.state == .pinned && keys.first?.highestEpoch == 1)
                #expect(keys.first.map { $0.certificate.verifies(userID: $0.userID, deviceID: $0.deviceID, identity: $0.identity) } == true)
                #expect(!snapshot.omitted.contains { $0.reason == .keyWithoutProof })

                let directory = FileManager.default.temporaryDirectory.appendingPathComponent("e2ee-transfer-\(UUID().uuidString)")
                try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
                defer { try? FileManager.default.removeItem(at: directory) }
                let newDevice = try KeyStore.open(at: directory.appendingPathComponent("new.sqlite"), key: .random())
                try await newDevice.storeAccount(AccountRecord(serverURL: "https://example.invalid", userID: scene.alice.userID.rawValue,
                                                               deviceID: UUID().uuidString.lowercased(), accessToken: nil, refreshToken: nil,
                                                               updatedAt: StoreTime(microseconds: 0)))
                let report = try await newDevice.importTrust(snapshot.records, from: scene.alice.deviceID.rawValue, ownUserKey: nil,
                                                             now: Int64(Date().timeIntervalSince1970))
                #expect(report.skipped.isEmpty && report.conflicts.isEmpty)
                let standing = try await newDevice.read { db in try ContactKeyStore().loadStanding(userID: bob, db) }
                #expect(standing?.pinnedKey == scene.userKey.publicKey.rawRepresentation)
            }
        }
    }
}
