import E2EECrypto
import E2EEDevServer
@_spi(StoreInternals) import E2EEKeyStore
import E2EEMessaging
import E2EETransport
import Foundation
import Testing

extension IntegrationTests {
    /// docs/spec/protocol.md §3.17 mounted through the development server (the proposal's
    /// attack K2): a forged DM message whose header is 5,000 ahead, shown to Bob only.
    @Suite("Ratchet restart")
    struct RatchetRestartTests {
        /// Bob's clock, moved by hand on top of the real one.
        final class Clock: @unchecked Sendable {
            private let lock = NSLock()
            private var offset: Int64 = 0
            func advance(seconds: Int64) { lock.withLock { offset += seconds } }
            var now: @Sendable () -> StoreTime { { [self] in StoreTime.now().adding(seconds: lock.withLock { offset }) } }
        }

        @Test("K2: a DM header 5,000 ahead posted as Alice, seen by Bob only: Bob restarts at his next send, at most hourly, and the conversation goes on")
        func forcedRestart() async throws {
            try await MessagingHarness.with { harness in
                let clock = Clock()
                var bobConfiguration = MessagingHarness.testConfiguration
                bobConfiguration.now = clock.now
                let alice = try await harness.register("alice")
                let bob = try await harness.register("bob", configuration: bobConfiguration)
                try await harness.trust([alice, bob])
                let dm = try await harness.acceptedDM(alice, bob)
                let client = try await harness.reader(of: alice)
                try await Self.say("hello", from: alice, to: bob, in: dm.id, client, harness)
                try await Self.say("hi", from: bob, to: alice, in: dm.id, client, harness)
                try await Self.say("how are you?", from: alice, to: bob, in: dm.id, client, harness)
                let bobBefore = try #require(try await Self.currentSession(of: bob, with: alice))

                // Mallory, as the server, posts Alice's last message again with Bob's entry 5,000
                // ahead. Until the development server can show a row to one device only, it is
                // posted with Alice's credentials and deleted once Bob has read it, before
                // Alice's device reads the channel (it would take the row for its own, §3.14).
                let forged = try await Self.postAhead(of: alice, to: bob, in: dm.id, client: client, harness)
                try await bob.sync()
                #expect(try await bob.timeline(channelID: dm.id).first { $0.messageID == forged.id }?.state == .undecryptable(.tooFarAhead))
                try await client.deleteMessage(id: forged.id)
                #expect(try await Self.currentSession(of: bob, with: alice) == bobBefore, "the refusal changed no session")

                // Bob's next send restarts: a prekey message of a fresh X3DH, which Alice reads.
                let restart = try await Self.say("fine, and you?", from: bob, to: alice, in: dm.id, client, harness)
                guard case .prekey(let restartMessage) = restart else { Issue.record("no restart: \(restart)"); return }
                let bobSessions = try await bob.store.sessions(userID: alice.userID.rawValue, deviceID: alice.deviceID.rawValue, limit: 50)
                #expect(bobSessions.count == 2 && bobSessions.last?.id == bobBefore.id, "the old session archived")
                // The conversation goes on in both directions, in the new session.
                try await Self.say("good", from: alice, to: bob, in: dm.id, client, harness)
                guard case .normal = try await Self.say("glad to hear", from: bob, to: alice, in: dm.id, client, harness) else {
                    Issue.record("Bob did not hear back in the new session"); return
                }

                // A second forgery within the hour is refused the same way but restarts nothing.
                let again = try await Self.postAhead(of: alice, to: bob, in: dm.id, client: client, harness)
                try await bob.sync()
                #expect(try await bob.timeline(channelID: dm.id).first { $0.messageID == again.id }?.state == .undecryptable(.tooFarAhead))
                try await client.deleteMessage(id: again.id)
                guard case .normal = try await Self.say("still here", from: bob, to: alice, in: dm.id, client, harness) else {
                    Issue.record("restarted twice within the hour"); return
                }
                try await Self.say("me too", from: alice, to: bob, in: dm.id, client, harness)

                // An hour later on Bob's clock, the request that waited is honoured once.
                clock.advance(seconds: ProtocolLimits.minRatchetRestartIntervalSeconds + 1)
                guard case .prekey(let later) = try await Self.say("an hour on", from: bob, to: alice, in: dm.id, client, harness) else {
                    Issue.record("the waiting request was not honoured after the hour"); return
                }
                #expect(later.baseKey != restartMessage.baseKey)
                try await Self.say("and on", from: alice, to: bob, in: dm.id, client, harness)
                guard case .normal = try await Self.say("done", from: bob, to: alice, in: dm.id, client, harness) else { Issue.record("restarted again"); return }

                let expected = ["hello", "hi", "how are you?", "fine, and you?", "good", "glad to hear", "still here", "me too", "an hour on", "and on", "done"]
                #expect(try await Self.readable(alice, dm.id) == expected)
                #expect(try await Self.readable(bob, dm.id) == expected)
            }
        }

        /// `from` sends `text`; `to` catches up and reads it. Returns the pairwise message the
        /// posted envelope carries for `to`'s device (read from the server with `client`).
        @discardableResult
        static func say(_ text: String, from: Account, to: Account, in channelID: ChannelID, _ client: HTTPChatServer,
                        _ harness: MessagingHarness) async throws -> PairwiseMessage {
            let report = try await from.send(text: text, to: channelID)
            await from.waitForOutbox()
            try await to.sync()
            #expect(try await to.timeline(channelID: channelID).last { $0.state == .decrypted }?.text == text, "\(to.userID) reads \(text)")
            let id = try #require(try await from.outboxEntries(states: [.sent, .delivered]).first { $0.localID == report.localID }?.serverMessageID)
            let posted = try #require(try await harness.serverMessages(channelID, as: client).first { $0.id == id })
            guard case .dm(let dm) = try envelope(of: posted) else { throw RestartTestError("not a DM envelope") }
            return try PairwiseMessage(bytes: try dm.pairwiseMessage(for: WireUUID(text: to.deviceID.rawValue)))
        }

        /// Posts, with `client`'s credentials, `sender`'s last message in `channelID` again
        /// with the entry for `reader`'s device moved 5,000 positions ahead.
        static func postAhead(of sender: Account, to reader: Account, in channelID: ChannelID, client: HTTPChatServer,
                              _ harness: MessagingHarness) async throws -> ServerMessage {
            let genuine = try #require(try await harness.serverMessages(channelID, as: client).last { $0.senderDeviceID == sender.deviceID })
            guard case .dm(let dm) = try envelope(of: genuine) else { throw RestartTestError("not a DM envelope") }
            let target = try WireUUID(text: reader.deviceID.rawValue)
            let entries = try dm.recipients.map { entry in
                entry.recipientDevice == target ? try RecipientEntry(recipientDevice: target, pairwiseMessage: ahead(entry.pairwiseMessage, by: 5_000)) : entry
            }
            let forged = try DMEnvelope(senderDevice: dm.senderDevice, payloadNonce: dm.payloadNonce, keyCommit: dm.keyCommit,
                                        recipients: entries, payloadCiphertext: dm.payloadCiphertext)
            return try await client.sendMessage(channelID: channelID, OutgoingMessage(
                content: Base64.encode(forged.encoded()), contentType: "e2ee.dm", protocolVersion: 2, senderDeviceID: sender.deviceID))
        }

        /// `pairwise` (§3.15) with its header's `N` moved `count` ahead.
        static func ahead(_ pairwise: [UInt8], by count: UInt32) -> [UInt8] {
            let at = (pairwise.first == 0x02 ? 106 : 0) + 1 + 32 + 4
            let counter = pairwise[at..<at + 4].reduce(UInt32(0)) { $0 << 8 | UInt32($1) } &+ count
            var bytes = pairwise
            bytes.replaceSubrange(at..<at + 4, with: [UInt8(counter >> 24 & 0xff), UInt8(counter >> 16 & 0xff), UInt8(counter >> 8 & 0xff), UInt8(counter & 0xff)])
            return bytes
        }

        static func currentSession(of account: Account, with other: Account) async throws -> StoredSession? {
            try await account.store.currentSession(userID: other.userID.rawValue, deviceID: other.deviceID.rawValue)
        }

        static func readable(_ account: Account, _ channelID: ChannelID) async throws -> [String] {
            try await account.timeline(channelID: channelID).compactMap { $0.state == .decrypted ? $0.text : nil }
        }
    }
}

/// A test's own failure to set up what it needs.
struct RestartTestError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
