import E2EECrypto
import E2EEDevServer
import E2EEKeyStore
import E2EEMessaging
import E2EETransport
import Foundation
import Testing

extension IntegrationTests {
    /// docs/spec/protocol.md §1.4, §10.3 (text 1.3): the signed prekey record is read strictly. The
    /// server lists, for a user, a device whose record is text 1.2's, of the wrong length, or
    /// badly signed: the listing is refused and nothing is sent to that user (attack K1 of
    /// the linking proposal). A certificate that does not verify refuses nothing.
    @Suite("Signed prekey records the server lists")
    struct RecordAttackTests {
        /// Bob's listing gains a device whose bundle is `identity`'s with `record` and
        /// `signature`; Alice's DM to Bob must fail as unreadable, posting nothing and starting no
        /// session. The record and signature are built by hand from bytes, as an old or hostile
        /// client would upload them.
        static func expectRefusedListing(_ harness: MessagingHarness, bobName: String,
                                         record: @escaping @Sendable (E2EECrypto.IdentityKeyPair, E2EECrypto.SignedPrekey) -> [UInt8],
                                         signature: @escaping @Sendable (E2EECrypto.IdentityKeyPair, [UInt8]) -> [UInt8]) async throws {
            let alice = try await harness.registerWithDefaults("alice-\(bobName)")
            let bob = try await harness.registerWithDefaults(bobName)
            let dm = try await alice.openDirectMessage(with: bob.userID)
            let injected = try await harness.injectDevice(into: bob.userID.rawValue)
            let identity = IdentityKeyPair()
            let spk = try SignedPrekey(id: 3, identity: identity, createdAt: 0)
            let bytes = record(identity, spk)
            try await harness.reader(of: injected).uploadKeys(KeyBundleUpload(
                deviceID: injected.deviceID, identityKey: identity.publicIdentity.base64, signedPreKey: Base64.encode(bytes),
                signedPreKeySignature: Base64.encode(signature(identity, bytes)), oneTimePreKeys: []))

            let entry = try await alice.send(text: "for \(bobName)", to: dm.id)
            #expect(entry.state == .failed, "\(bobName): the send went out")
            #expect(entry.failureReason?.contains("unreadableDeviceList") == true, "\(bobName): \(entry.failureReason ?? "no reason")")
            #expect(try await harness.serverMessages(dm.id, as: harness.reader(of: bob)).isEmpty, "\(bobName): something was posted")
            #expect(try await alice.store.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM sessions") } == 0)
        }

        /// `0x02 || spk_id || SPK_pub || 104 zero bytes`, the record of a device not linked.
        static func zeroRecord(_ spk: SignedPrekey) -> [UInt8] {
            [0x02] + u32(spk.id) + spk.keyPair.publicKey.rawRepresentation + [UInt8](repeating: 0, count: 104)
        }

        /// A big-endian `u32`.
        static func u32(_ value: UInt32) -> [UInt8] { [UInt8(value >> 24), UInt8(value >> 16 & 0xff), UInt8(value >> 8 & 0xff), UInt8(value & 0xff)] }

        /// `SIG`'s signature of `record` under `label`.
        static func signed(_ label: String) -> @Sendable (E2EECrypto.IdentityKeyPair, [UInt8]) -> [UInt8] {
            { identity, record in identity.signingKey.signature(for: Array(label.utf8) + record) }
        }

        @Test("K1: a text 1.2 record, a record of 140 or 142 bytes, or a bad SIG signature refuses the listing: nothing is sent")
        func oldAndMalformedRecordsAreRefused() async throws {
            try await MessagingHarness.with { harness in
                // Text 1.2's 37-byte form, signed as 1.2 signed it.
                try await Self.expectRefusedListing(harness, bobName: "bob-v1", record: { _, spk in
                    [0x01] + Self.u32(spk.id) + spk.keyPair.publicKey.rawRepresentation
                }, signature: Self.signed("e2ee-spk-v1"))
                try await Self.expectRefusedListing(harness, bobName: "bob-short", record: { _, spk in Array(Self.zeroRecord(spk).dropLast()) },
                                                    signature: Self.signed("e2ee-spk-v2"))
                try await Self.expectRefusedListing(harness, bobName: "bob-long", record: { _, spk in Self.zeroRecord(spk) + [0] },
                                                    signature: Self.signed("e2ee-spk-v2"))
                // A well-formed record signed by another key than the blob's SIG.
                try await Self.expectRefusedListing(harness, bobName: "bob-forged", record: { _, spk in Self.zeroRecord(spk) },
                                                    signature: { _, record in IdentityKeyPair().signingKey.signature(for: Array("e2ee-spk-v2".utf8) + record) })
            }
        }

        @Test("§10.3: a device whose certificate was made for another device is uncertified, and still gets the message")
        func transplantedCertificateRefusesNothing() async throws {
            try await MessagingHarness.with { harness in
                let alice = try await harness.register("alice")
                let bob = try await harness.register("bob")
                let laptop = try await harness.login("bob")
                let userKey = Ed25519.PrivateKey()
                let user = try WireUUID(text: bob.userID.rawValue)
                // The phone's certificate, published by the laptop: it names another device.
                let phoneCertificate = try DeviceCertificate.issue(by: userKey, userID: user, deviceID: WireUUID(text: bob.deviceID.rawValue),
                                                                   identity: bob.identity, epoch: 1, notAfter: 2_000_000_000)
                try await laptop.debugPublishCertificate(phoneCertificate.bytes)
                let devices = try await alice.devices(of: bob.userID)
                #expect(Set(devices.map(\.deviceID)) == [bob.deviceID, laptop.deviceID])
                #expect(devices.allSatisfy { $0.verifiedCertificate == nil })
                #expect(devices.first { $0.deviceID == laptop.deviceID }?.bundle.certificate == phoneCertificate)

                let dm = try await alice.openDirectMessage(with: bob.userID)
                try await harness.trust([alice, bob, laptop])
                try await alice.send(text: "still delivered", to: dm.id)
                await alice.waitForOutbox()
                try await harness.accept(dm, on: [laptop], between: (alice.userID, bob.userID))
                #expect(try await readableTexts(laptop, dm.id) == ["still delivered"])
            }
        }
    }
}
