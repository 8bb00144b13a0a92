import E2EECrypto
import E2EEDevServer
@_spi(StoreInternals) import E2EEKeyStore
import E2EEMessaging
import E2EETransport
import Foundation
import Testing

extension IntegrationTests {
    /// The sending side of the messaging layer against the development server over loopback:
    /// key bootstrap, DMs to every device, group sender keys, and what reaches the server.
    @Suite("Sending")
    struct SendingTests {
        @Test("key bootstrap uploads once; a second run changes nothing and says so")
        func bootstrapIsIdempotent() async throws {
            try await MessagingHarness.with { harness in
                let alice = try await harness.register("alice")
                #expect(try await alice.bootstrapKeys() == .alreadyBootstrapped)
                let status = try await alice.keyStatus()
                #expect(status.publishedOneTimePrekeys == 50)
                #expect(status.pendingOneTimePrekeys == 0)
                // The development server (quirks off) pops a one-time prekey on every bundle
                // fetch: the second bootstrap's check and this status read each took one.
                #expect(status.serverOneTimePrekeys == 48)
                #expect(status.signedPrekeyID != nil)
                #expect(status.identityFingerprint?.count == 30)
            }
        }

        @Test("T6: a DM is addressed to every device of both users except the sender's")
        func directMessageReachesEveryDevice() async throws {
            try await MessagingHarness.with { harness in
                let alice = try await harness.register("alice")
                let alice2 = try await harness.login("alice")
                let bob = try await harness.register("bob")
                let bob2 = try await harness.login("bob")
                // alice2 logged in after alice registered: a new own device, trusted once approved.
                try await harness.trust([alice, alice2, bob, bob2])
                let dm = try await alice.openDirectMessage(with: bob.userID)
                let entry = try await alice.send(text: "hello bob", to: dm.id)
                #expect(entry.state == .queued)
                await alice.waitForOutbox()

                let posted = try await harness.serverMessages(dm.id, as: try await harness.reader(of: bob))
                try #require(posted.count == 1)
                let message = posted[0]
                #expect(message.contentType == "e2ee.dm")
                #expect(message.protocolVersion == 2)
                #expect(message.senderDeviceID == alice.deviceID)
                #expect(try recipientDevices(of: message) == [alice2.deviceID, bob.deviceID, bob2.deviceID])
                #expect(try envelope(of: message).senderDevice.text == alice.deviceID.rawValue)

                let sent = try await alice.outboxEntries(states: [.sent])
                #expect(sent.map(\.serverMessageID) == [message.id])
                let own = try #require(try await alice.store.message(id: message.id.rawValue))
                #expect(own.isOwn)
                #expect(own.state == .decrypted)
                #expect(try MessagePayload(json: try #require(own.plaintext)).text == "hello bob")
            }
        }

        @Test("T4: the first message to a device uses its one-time prekey (DH4)")
        func firstMessageUsesOneTimePrekey() async throws {
            try await MessagingHarness.with { harness in
                let alice = try await harness.register("alice")
                let bob = try await harness.register("bob")
                let dm = try await alice.openDirectMessage(with: bob.userID)
                try await alice.send(text: "first", to: dm.id)
                await alice.waitForOutbox()
                let message = try #require(try await harness.serverMessages(dm.id, as: try await harness.reader(of: bob)).first)
                guard case .dm(let envelope) = try envelope(of: message) else { Issue.record("not a DM envelope"); return }
                let entry = try envelope.pairwiseMessage(for: WireUUID(text: bob.deviceID.rawValue))
                guard case .prekey(let prekey) = try PairwiseMessage(bytes: entry) else { Issue.record("not a prekey message"); return }
                #expect(prekey.oneTimePrekeyID != 0)
                #expect(prekey.identity == alice.identity)
            }
        }

        @Test("T1: a group's sender key travels only in SKDs; the server's index holds public data only")
        func groupSenderKeyIsDistributedOnceAndIndexIsPublic() async throws {
            try await MessagingHarness.with { harness in
                let alice = try await harness.register("alice")
                let alice2 = try await harness.login("alice")
                let bob = try await harness.register("bob")
                let carol = try await harness.register("carol")
                try await harness.trust([alice, alice2])
                let group = try await alice.createGroup(name: "team", members: [bob.userID, carol.userID])
                try await harness.accept(group, on: [bob, carol])
                try await alice.send(text: "one", to: group.id)
                try await alice.send(text: "two", to: group.id)
                await alice.waitForOutbox()

                let posted = try await harness.serverMessages(group.id, as: try await harness.reader(of: bob))
                #expect(posted.map(\.contentType) == ["e2ee.skd", "e2ee.group", "e2ee.group"])
                #expect(try recipientDevices(of: posted[0]) == [alice2.deviceID, bob.deviceID, carol.deviceID])
                guard case .group(let first) = try envelope(of: posted[1]), case .group(let second) = try envelope(of: posted[2]) else {
                    Issue.record("not group envelopes"); return
                }
                #expect(first.keyID == second.keyID)
                #expect([first.iteration, second.iteration] == [0, 1])

                let index = try await harness.reader(of: carol).senderKeys(channelID: group.id)
                let entry = try #require(index.first { $0.deviceID == alice.deviceID })
                let chainKeyField = try Base64.decode(entry.chainKey, maxEncodedLength: 255)
                #expect(chainKeyField == [0x01] + withUnsafeBytes(of: first.keyID.bigEndian, Array.init))
                #expect(try Base64.decode(entry.senderKeyPublic, maxEncodedLength: 255).count == 32)
            }
        }

        @Test("T11: after a member leaves, the next message uses a new sender key sent only to those who remain")
        func leavingMemberTriggersRotation() async throws {
            try await MessagingHarness.with { harness in
                var configuration = MessagingHarness.testConfiguration
                configuration.memberLifetime = .zero
                let alice = try await harness.register("alice", configuration: configuration)
                let bob = try await harness.register("bob")
                let carol = try await harness.register("carol")
                let group = try await alice.createGroup(name: "team", members: [bob.userID, carol.userID])
                try await harness.accept(group, on: [bob, carol])
                try await alice.send(text: "before", to: group.id)
                await alice.waitForOutbox()
                try await harness.reader(of: carol).leaveChannel(id: group.id)
                try await alice.send(text: "after", to: group.id)
                await alice.waitForOutbox()

                let posted = try await harness.serverMessages(group.id, as: try await harness.reader(of: bob))
                #expect(posted.map(\.contentType) == ["e2ee.skd", "e2ee.group", "e2ee.skd", "e2ee.group"])
                #expect(try recipientDevices(of: posted[2]) == [bob.deviceID])
                guard case .group(let before) = try envelope(of: posted[1]), case .group(let after) = try envelope(of: posted[3]) else {
                    Issue.record("not group envelopes"); return
                }
                #expect(before.keyID != after.keyID)
                #expect(after.iteration == 0)
            }
        }

        @Test("a new member gets a new sender key with the next message, never a chain state used before it joined")
        func joinerGetsCurrentIterationOnly() async throws {
            try await MessagingHarness.with { harness in
                var configuration = MessagingHarness.testConfiguration
                configuration.memberLifetime = .zero
                let alice = try await harness.register("alice", configuration: configuration)
                let bob = try await harness.register("bob")
                let dave = try await harness.register("dave")
                let group = try await alice.createGroup(name: "team", members: [bob.userID])
                try await harness.accept(group, on: [bob])
                for text in ["a", "b", "c"] { try await alice.send(text: text, to: group.id) }
                try await alice.addMember(dave.userID, to: group.id)
                try await alice.send(text: "d", to: group.id)
                await alice.waitForOutbox()

                let posted = try await harness.serverMessages(group.id, as: try await harness.reader(of: bob))
                // a, b, c; then the new key, the announcement of Dave's addition (§5.15) and d.
                #expect(posted.map(\.contentType) == ["e2ee.skd", "e2ee.group", "e2ee.group", "e2ee.group", "e2ee.skd", "e2ee.group", "e2ee.group"])
                // docs/spec/protocol.md §4.8: the key is rotated for the new recipient set, so Dave
                // never holds a chain state that (after a restore) may already have been used.
                #expect(try recipientDevices(of: posted[4]) == [bob.deviceID, dave.deviceID])
                guard case .group(let announcement) = try envelope(of: posted[5]), case .group(let first) = try envelope(of: posted[1]) else {
                    Issue.record("not group envelopes"); return
                }
                #expect(announcement.keyID != first.keyID)
                #expect(announcement.iteration == 0)
                _ = try await dave.acceptChannel(group.id)
                #expect(try await readableTexts(dave, group.id) == ["d"])
            }
        }

        @Test("the sender key rotates after 100 messages")
        func senderKeyRotatesAfterHundredMessages() async throws {
            try await MessagingHarness.with { harness in
                let alice = try await harness.register("alice")
                let bob = try await harness.register("bob")
                let group = try await alice.createGroup(name: "busy", members: [bob.userID])
                try await harness.accept(group, on: [bob])
                for index in 0..<101 { try await alice.send(text: "message \(index)", to: group.id) }
                await alice.waitForOutbox()
                let reader = try await harness.reader(of: bob)
                var all: [ServerMessage] = []
                var before: ServerTimestamp?
                repeat {
                    let page = try await reader.messages(channelID: group.id, before: before, limit: 100)
                    all = page.messages + all
                    before = page.hasMore ? page.messages.first?.createdAt : nil
                } while before != nil
                let unique = Dictionary(all.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first }).values.sorted(by: ServerMessage.timelineOrder)
                #expect(unique.filter { $0.contentType == "e2ee.skd" }.count == 2)
                let keyIDs = try unique.compactMap { message -> UInt32? in
                    if case .group(let group) = try envelope(of: message) { return group.keyID }
                    return nil
                }
                #expect(keyIDs.count == 101)
                #expect(Set(keyIDs.prefix(100)).count == 1)
                #expect(keyIDs[100] != keyIDs[0])
            }
        }

        @Test("T12: a message that cannot be encrypted is never sent; it stays failed until a retry can encrypt it")
        func unencryptableMessageNeverLeavesInPlaintext() async throws {
            try await MessagingHarness.with { harness in
                let alice = try await harness.register("alice")
                let eveStore = try KeyStore.inMemory()
                let eveClient = harness.client(store: eveStore)
                let eveTokens = try await eveClient.register(username: "eve", password: "password123", deviceName: "phone")
                let dm = try await alice.openDirectMessage(with: eveTokens.userID)
                let entry = try await alice.send(text: "secret", to: dm.id)
                #expect(entry.state == .failed)
                #expect(try await alice.outboxEntries(states: [.failed]).first?.isWaitingToBeEncrypted == true, "nothing was encrypted")
                #expect(entry.failureReason?.contains("noRecipients") == true)
                await alice.waitForOutbox()
                #expect(try await harness.serverMessages(dm.id, as: eveClient).isEmpty)

                let eve = try await Account.open(server: eveClient, store: eveStore, configuration: MessagingHarness.testConfiguration)
                _ = try await eve.bootstrapKeys()
                let retried = try await alice.retry(entry.localID)
                #expect(retried.state == .queued)
                #expect(retried.localID == entry.localID)
                await alice.waitForOutbox()
                let posted = try await harness.serverMessages(dm.id, as: eveClient)
                #expect(posted.count == 1)
                #expect(posted.first?.contentType == "e2ee.dm")
                #expect(posted.first?.content.contains("secret") == false)
            }
        }
    }
}
