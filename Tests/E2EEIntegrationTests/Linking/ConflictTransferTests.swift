import E2EECrypto
import E2EEDevServer
@_spi(StoreInternals) import E2EEKeyStore
@testable import E2EEMessaging
import Foundation
import Testing

extension IntegrationTests {
    /// Attack K37 of the linking proposal (first half) against the development server: a contact
    /// the primary holds as conflicted stays conflicted on a new linked device, whatever the
    /// server lists to it.
    @Suite("A conflict transferred")
    struct ConflictTransferTests {
        @Test("K37: Carol's stolen laptop under K_T leaves her conflicted on the phone; the new laptop, shown only K_T for Carol, is conflicted too and sends her nothing")
        func conflictTransferred() async throws {
            try await MessagingHarness.with { harness in
                let scene = try await OwnUserKeyScene.make(harness)
                defer { scene.cleanUp() }
                // Carol has a key; her stolen laptop carries another one.
                let carolPhone = try await harness.registerWithDefaults("carol")
                let carolLaptop = try await harness.login("carol", configuration: MessagingHarness.recipientConfiguration)
                let notAfter = UInt32(KeyedContact.wallClock() + 20 * 86_400)
                try await KeyedContact.certify(carolPhone, by: Ed25519.PrivateKey(), notAfter: notAfter)
                let thief = Ed25519.PrivateKey()
                try await KeyedContact.certify(carolLaptop, by: thief, notAfter: notAfter)

                // Bob's phone meets Carol now: two current keys, conflicted; nothing goes to her.
                let dm = try await scene.bob.openDirectMessage(with: carolPhone.userID)
                let refused = try await KeyedContact.send("to Carol", from: scene.bob, to: dm.id, harness: harness)
                #expect(refused.recipients == nil, "setting up: something was posted to a conflicted user")
                #expect(try await scene.bob.userKey(of: carolPhone.userID).state == .conflicted, "setting up")

                let laptop = try await harness.login("bob", configuration: MessagingHarness.recipientConfiguration)
                let log = EventLog(laptop)
                try await LinkCeremonyIntegrationTests.link(laptop, to: scene.bob)
                try await LinkCeremonyIntegrationTests.pump(scene.bob, laptop, until: log) {
                    if case .linking(.trustTransferred) = $0 { true } else { false }
                }
                // The server shows the new laptop only the thief's key for Carol.
                await harness.server.faults.serveRecord(device: carolPhone.deviceID.rawValue, record: .absent, toViewer: laptop.deviceID.rawValue)
                let attempt = try await KeyedContact.send("to Carol from the laptop", from: laptop, to: dm.id, harness: harness)
                #expect(attempt.recipients == nil, "the laptop posted to Carol: \(String(describing: attempt.recipients))")
                #expect(try await laptop.userKey(of: carolPhone.userID).state == .conflicted)
                #expect(try await laptop.linkedDevices(of: carolPhone.userID).isEmpty)
                await laptop.shutdown()
                await carolPhone.shutdown()
                await carolLaptop.shutdown()
                await scene.bob.shutdown()
                await scene.alice.shutdown()
            }
        }
    }
}
