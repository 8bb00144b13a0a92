import E2EECrypto
import E2EEDevServer
import E2EEKeyStore
@_spi(Benchmarks) import E2EEMessaging
import E2EETransport
import Foundation
import Testing

extension IntegrationTests {
    /// THREATS T7 mounted through the server: a member posts a group message as another member.
    @Suite("Forgery")
    struct ForgeryTests {
        @Test("T7: a member's message forged as another member's is refused; the real one reads fine")
        func forgedGroupMessageIsRefused() async throws {
            try await MessagingHarness.with { harness in
                let alice = try await harness.register("alice")
                let bob = try await harness.register("bob")
                let mallory = try await harness.register("mallory")
                let group = try await alice.createGroup(name: "team", members: [bob.userID, mallory.userID])
                try await harness.accept(group, on: [bob, mallory])
                try await alice.send(text: "from alice", to: group.id)
                await alice.waitForOutbox()
                try await mallory.sync()

                // Mallory holds Alice's chain (she is a member) but not Alice's signing key: she
                // copies the header of Alice's message at the next iteration and signs herself.
                let malloryClient = try await harness.reader(of: mallory)
                let real = try #require(try await harness.serverMessages(group.id, as: malloryClient).last)
                guard case .group(let genuine) = try envelope(of: real) else { Issue.record("not a group envelope"); return }
                let forgedSigner = Ed25519.PrivateKey()
                let unsigned = GroupEnvelope.typeBytes + genuine.senderDevice.bytes + withUnsafeBytes(of: genuine.keyID.bigEndian, Array.init)
                    + withUnsafeBytes(of: (genuine.iteration + 1).bigEndian, Array.init) + genuine.nonce + genuine.ciphertext
                let forged = try GroupEnvelope(senderDevice: genuine.senderDevice, keyID: genuine.keyID, iteration: genuine.iteration + 1,
                                               nonce: genuine.nonce, ciphertext: genuine.ciphertext,
                                               signature: forgedSigner.signature(for: Array("e2ee-group-sig-v2".utf8) + (try WireUUID(text: group.id.rawValue)).bytes + unsigned))
                let posted = try await malloryClient.sendMessage(channelID: group.id, OutgoingMessage(
                    content: Base64.encode(forged.encoded()), contentType: "e2ee.group", protocolVersion: 2, senderDeviceID: alice.deviceID))

                try await bob.sync()
                let items = try await bob.timeline(channelID: group.id)
                #expect(items.first { $0.messageID == real.id }?.text == "from alice")
                let refused = try #require(items.first { $0.messageID == posted.id })
                #expect(refused.text == nil)
                // Posted by Mallory's account, it claims Alice's device under Mallory's user (§5).
                #expect(refused.state == .undecryptable(.senderMismatch))

                // A server that lies about the sender too (sender_id = Alice): the signature,
                // checked before anything else (§4), refuses it.
                var relabelled = posted
                relabelled.id = MessageID(UUID().uuidString)
                relabelled.senderID = alice.userID
                let outcomes = try await bob.ingest([relabelled], channelID: group.id)
                #expect(outcomes.count == 1)
                #expect(try await bob.timeline(channelID: group.id).first { $0.messageID == relabelled.id }?.state == .undecryptable(.badSignature))
                // Alice's chain did not move: her next real message still reads.
                try await alice.send(text: "still me", to: group.id)
                await alice.waitForOutbox()
                try await bob.sync()
                #expect(try await bob.timeline(channelID: group.id).last?.text == "still me")
            }
        }
    }
}
