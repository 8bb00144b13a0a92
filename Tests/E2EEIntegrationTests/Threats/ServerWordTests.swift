import E2EECrypto
import E2EEDevServer
import E2EEKeyStore
import E2EEMessaging
import E2EETransport
import Foundation
import Testing

extension IntegrationTests {
    /// docs/spec/protocol.md §5 and THREATS T11: who gets a channel's keys is never the server's
    /// word. Each test mounts one attack against the development server (with a lying proxy
    /// where the server must lie about what it lists) and ends with the attacker unable to read.
    @Suite("The server's word grants no keys")
    struct ServerWordTests {
        @Test("a DM whose kind the server flips stays a DM: the change is surfaced, never followed, and no key goes to a joiner")
        func flippedKindIsNeverFollowed() async throws {
            try await MessagingHarness.with { harness in
                let store = try KeyStore.inMemory()
                let lying = LyingServer(harness.client(store: store))
                let alice = try await harness.register("alice", store: store, configuration: MessagingHarness.recipientConfiguration) { _ in lying }
                let bob = try await harness.registerWithDefaults("bob")
                let mallory = try await harness.registerWithDefaults("mallory")
                let dm = try await alice.openDirectMessage(with: bob.userID)
                _ = try await bob.openDirectMessage(with: alice.userID)
                try await alice.send(text: "one", to: dm.id)
                await alice.waitForOutbox()

                try await harness.reader(of: mallory).joinChannel(id: dm.id)
                lying.flipKind(of: dm.id.rawValue)
                let events = alice.events()
                _ = try await alice.refreshChannels()
                let flagged = await firstEvent(in: events) { if case .identity(.channelKindContradicted) = $0 { true } else { false } }
                #expect(flagged == .identity(.channelKindContradicted(channelID: dm.id)))
                #expect(try await alice.channel(id: dm.id).isDM)
                #expect(try await alice.channel(id: dm.id).encryption == .x3dh)

                try await alice.send(text: "two", to: dm.id)
                await alice.waitForOutbox()
                let posted = try await harness.serverMessages(dm.id, as: harness.reader(of: bob))
                #expect(posted.count == 2)
                #expect(try posted.allSatisfy { try !recipientDevices(of: $0).contains(mallory.deviceID) }, "no key, no SKD for the joiner")
                for message in posted {
                    guard case .dm(let envelope) = try envelope(of: message) else { Issue.record("not a DM envelope"); continue }
                    #expect(Set(envelope.recipients.map(\.recipientDevice.text)) == [bob.deviceID.rawValue])
                }
                #expect(try await readableTexts(mallory, dm.id).isEmpty)
                #expect(try await readableTexts(bob, dm.id) == ["one", "two"])
            }
        }

        @Test("a forged listing naming Mallory as the DM's creator fixes nothing: Bob's new device sends nothing until it accepts")
        func forgedCreatorFixesNoParticipant() async throws {
            try await MessagingHarness.with { harness in
                let alice = try await harness.registerWithDefaults("alice")
                let bob = try await harness.registerWithDefaults("bob")
                let mallory = try await harness.registerWithDefaults("mallory")
                let dm = try await alice.openDirectMessage(with: bob.userID)
                try await alice.send(text: "hi bob", to: dm.id)
                await alice.waitForOutbox()
                try await harness.reader(of: mallory).joinChannel(id: dm.id)

                let dmID = dm.id
                let malloryID = mallory.userID
                let bob3 = try await harness.login("bob", deviceName: "tablet", configuration: MessagingHarness.recipientConfiguration) { http in
                    let lying = LyingServer(http)
                    lying.claimCreator(of: dmID.rawValue, is: malloryID.rawValue)
                    return lying
                }
                _ = try await bob3.refreshChannels()
                #expect(try await bob3.directMessageParticipant(dm.id) == nil)
                await #expect(throws: MessagingError.channelNotAccepted(channelID: dm.id)) { try await bob3.send(text: "for alice", to: dm.id) }
                let posted = try await harness.serverMessages(dm.id, as: harness.reader(of: alice))
                #expect(posted.count == 1)
                #expect(try posted.allSatisfy { try !recipientDevices(of: $0).contains(mallory.deviceID) })
                #expect(try await readableTexts(mallory, dm.id).isEmpty)
            }
        }

        @Test("a third user's message in a DM, on a device that learned the DM late, waits and is refused as notAParticipant on acceptance")
        func thirdUserRefusedOnLateDevice() async throws {
            try await MessagingHarness.with { harness in
                let alice = try await harness.registerWithDefaults("alice")
                let bob = try await harness.registerWithDefaults("bob")
                let mallory = try await harness.registerWithDefaults("mallory")
                let dm = try await bob.openDirectMessage(with: alice.userID)
                #expect(try await alice.openDirectMessage(with: bob.userID).id == dm.id)
                try await bob.send(text: "hi alice", to: dm.id)
                await bob.waitForOutbox()
                try await harness.reader(of: mallory).joinChannel(id: dm.id)
                let bob2 = try await harness.login("bob", configuration: MessagingHarness.recipientConfiguration)
                try await alice.send(text: "hi bob", to: dm.id)
                await alice.waitForOutbox()

                // Mallory's own client counts her as a participant and writes to Bob's devices.
                _ = try await mallory.refreshChannels()
                try await mallory.store.write { db in
                    _ = try mallory.store.recipientStore.fixParticipants(channelID: dm.id.rawValue, userIDs: [mallory.userID.rawValue, bob.userID.rawValue], db)
                    try mallory.store.channelTrustStore.storeStanding(.accepted, channelID: dm.id.rawValue, db)
                }
                try await mallory.send(text: "it's alice, new number", to: dm.id)
                await mallory.waitForOutbox()

                #expect(try await readableTexts(bob2, dm.id).isEmpty, "a request shows nothing")
                let requests = try await bob2.channelRequests()
                #expect(requests.map(\.channel.id) == [dm.id])
                #expect(requests.first?.candidate == alice.userID, "the earliest other writer, not the latest")
                #expect(try await bob2.acceptChannel(dm.id) == [alice.userID])
                #expect(try await bob2.directMessageParticipant(dm.id) == alice.userID)
                #expect(try await readableTexts(bob2, dm.id) == ["hi bob"])
                let refused = try await bob2.store.read { db in
                    try String.fetchAll(db, sql: "SELECT failure_reason FROM timeline WHERE channel_id = ? AND sender_user_id = ?",
                                        arguments: [dm.id.rawValue, mallory.userID.rawValue])
                }
                #expect(refused == [UndecryptableReason.notAParticipant.rawValue])
                // On the device that created the DM, the same message is refused too.
                #expect(try await readableTexts(bob, dm.id) == ["hi alice", "hi bob"])
            }
        }
    }
}
