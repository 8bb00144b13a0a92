import E2EECrypto
import E2EEDevServer
import E2EEKeyStore
import E2EEMessaging
import E2EETransport
import Foundation
import Testing

extension IntegrationTests {
    /// docs/spec/protocol.md §1.4 (text 1.3): every device publishes the record version 2 — the zero
    /// certificate, or the one it was given (in debug builds, ``Account/debugPublishCertificate(_:)``),
    /// kept across signed prekey rotations — and a contact reads whether it verifies.
    @Suite("Published certificates")
    struct CertificatePublishingTests {
        /// Bob's record as the server lists it to `reader`.
        static func listedRecord(of bob: Account, to reader: Account) async throws -> SignedPrekeyRecord {
            try #require(try await reader.devices(of: bob.userID).first { $0.deviceID == bob.deviceID }).bundle.signedPrekey
        }

        @Test("every device publishes a 141-byte record with the zero certificate, uncertified for its contacts")
        func zeroCertificateByDefault() async throws {
            try await MessagingHarness.with { harness in
                let alice = try await harness.register("alice")
                let bob = try await harness.register("bob")
                let listed = try await harness.reader(of: alice).bundle(deviceID: bob.deviceID)
                #expect(listed.signedPreKey.count == 188)
                #expect(try Base64.decode(listed.signedPreKey, maxEncodedLength: 255).first == 0x02)
                let device = try #require(try await alice.devices(of: bob.userID).first)
                #expect(device.bundle.certificate.isZero && device.verifiedCertificate == nil)
            }
        }

        @Test("a published certificate verifies for its contacts, survives a signed prekey rotation, and zero bytes withdraw it")
        func publishedCertificateLastsUntilReplaced() async throws {
            try await MessagingHarness.with { harness in
                let alice = try await harness.register("alice")
                let bob = try await harness.register("bob")
                let certificate = try DeviceCertificate.issue(by: Ed25519.PrivateKey(), userID: WireUUID(text: bob.userID.rawValue),
                                                              deviceID: WireUUID(text: bob.deviceID.rawValue), identity: bob.identity,
                                                              epoch: 2, notAfter: 2_000_000_000)
                try await bob.debugPublishCertificate(certificate.bytes)
                let device = try #require(try await alice.devices(of: bob.userID).first)
                #expect(device.verifiedCertificate == certificate)
                #expect(try await bob.store.publishedCertificate() == certificate.bytes)

                let before = try await Self.listedRecord(of: bob, to: alice)
                #expect(try await bob.rotateSignedPrekey(force: true))
                let rotated = try await Self.listedRecord(of: bob, to: alice)
                #expect(rotated.id != before.id && rotated.certificate == certificate)
                // A bootstrap with everything in place republishes nothing and keeps it.
                #expect(try await bob.bootstrapKeys() == .alreadyBootstrapped)

                try await bob.debugPublishCertificate([UInt8](repeating: 0, count: 104))
                #expect(try await Self.listedRecord(of: bob, to: alice).certificate.isZero)
                #expect(try await bob.store.publishedCertificate() == nil)
            }
        }

        @Test("bytes that are not a certificate are a typed error, and nothing is published or stored")
        func malformedCertificateIsRefused() async throws {
            try await MessagingHarness.with { harness in
                let alice = try await harness.register("alice")
                let bob = try await harness.register("bob")
                let before = try await Self.listedRecord(of: bob, to: alice)
                await #expect(throws: ProtocolError.truncated(.certificate, expected: 104, actual: 103)) {
                    try await bob.debugPublishCertificate([UInt8](repeating: 1, count: 103))
                }
                // A non-zero certificate whose user key is all zero fails §0.8.
                await #expect(throws: ProtocolError.invalidKey(.certificate)) {
                    try await bob.debugPublishCertificate([UInt8](repeating: 0, count: 103) + [1])
                }
                #expect(try await Self.listedRecord(of: bob, to: alice) == before)
                #expect(try await bob.store.publishedCertificate() == nil)
            }
        }

        @Test("a device whose server bundle still holds text 1.2's record republishes on bootstrap")
        func textOneTwoRecordIsRepublished() async throws {
            try await MessagingHarness.with { harness in
                let alice = try await harness.register("alice")
                let bob = try await harness.register("bob")
                // What a 1.2 store left on the server: the same identity with a 37-byte record.
                let listed = try await harness.reader(of: bob).bundle(deviceID: bob.deviceID)
                let record = try Base64.decode(listed.signedPreKey, maxEncodedLength: 255)
                try await harness.reader(of: bob).uploadKeys(KeyBundleUpload(
                    deviceID: bob.deviceID, identityKey: listed.identityKey, signedPreKey: Base64.encode([0x01] + record[1..<37]),
                    signedPreKeySignature: listed.signedPreKeySignature, oneTimePreKeys: []))
                #expect(try await alice.devices(of: bob.userID).isEmpty, "text 1.2's record is refused")

                guard case .uploaded = try await bob.bootstrapKeys() else {
                    Issue.record("the bootstrap kept the server's text 1.2 record")
                    return
                }
                #expect(try await alice.devices(of: bob.userID).map(\.deviceID) == [bob.deviceID])
            }
        }
    }
}
