import E2EECrypto
import E2EEDevServer
@_spi(StoreInternals) import E2EEKeyStore
@testable import E2EEMessaging
import Foundation
import Testing

extension IntegrationTests {
    /// The seams of text 1.2 (issue 42, docs/spec/threats.md T11, T20, T21): a rule applied to
    /// the wrong set of devices, at the wrong moment, or in arrival order. Each test mounts the
    /// attack against the development server.
    @Suite("Seams of text 1.2")
    struct TextSeamTests {
        /// A payload JSON with a fresh id at `ts` (Unix ms) and `extra` members after `text`.
        static func payload(text: String, ts: Int64 = Int64(Date().timeIntervalSince1970 * 1000), _ extra: String = "") -> String {
            #"{"v":1,"id":"\#(UUID().uuidString.lowercased())","ts":\#(ts),"text":"\#(text)"\#(extra)}"#
        }

        /// Makes `account` send in `channelID` as if it had accepted it there, whatever it saw:
        /// what a device the attacker holds does with its own store.
        static func forceOpen(_ account: Account, _ channelID: ChannelID, participants: Set<String>? = nil) async throws {
            try await account.store.write { db in
                if let participants { try account.store.recipientStore.fixParticipants(channelID: channelID.rawValue, userIDs: participants, db) }
                try account.store.channelTrustStore.storeStanding(.accepted, channelID: channelID.rawValue, db)
            }
        }

        @Test("1. a device the server adds to alice's account names mallory in a DM request's `with`: the DM stays a request, not fixed to mallory")
        func injectedOwnDeviceCannotFixDM() async throws {
            try await MessagingHarness.with { harness in
                let alice = try await harness.registerWithDefaults("alice")
                let bob = try await harness.registerWithDefaults("bob")
                let mallory = try await harness.registerWithDefaults("mallory")
                let dm = try await bob.openDirectMessage(with: alice.userID)
                try await bob.send(text: "hi alice", to: dm.id)
                await bob.waitForOutbox()
                try await alice.sync()

                let attacker = try await harness.injectDevice(into: alice.userID.rawValue)
                try await attacker.sync()
                try await Self.forceOpen(attacker, dm.id, participants: [alice.userID.rawValue, mallory.userID.rawValue])
                try await postRawPayload(Self.payload(text: "it's me", #","with":"\#(mallory.userID)""#), from: attacker, in: dm.id)

                try await alice.sync()
                #expect(try await alice.directMessageParticipant(dm.id) == nil, "a device alice never trusted fixed her DM")
                let shown = try await alice.timeline(channelID: dm.id).first { $0.text == "it's me" }
                #expect(shown?.senderHeld == true, "the injected device's message is not flagged")
                // Alice sends nothing in the request until she accepts it, and then to Bob.
                let request = try #require(try await alice.channelRequests().first { $0.channel.id == dm.id })
                #expect(request.candidate == bob.userID)
            }
        }

        @Test("2. a device the server adds to alice's account: its group message is flagged on carol and alice, its tombstone erases nothing")
        func injectedSenderDeviceIsFlaggedEverywhere() async throws {
            try await MessagingHarness.with { harness in
                let alice = try await harness.registerWithDefaults("alice")
                let carol = try await harness.registerWithDefaults("carol")
                let group = try await alice.createGroup(name: "team", members: [carol.userID])
                _ = try await carol.acceptChannel(group.id)
                try await carol.send(text: "hi all", to: group.id)
                try await alice.send(text: "keep me", to: group.id)
                await carol.waitForOutbox()
                await alice.waitForOutbox()
                try await carol.sync()
                let kept = try #require(try await carol.timeline(channelID: group.id).first { $0.text == "keep me" })
                let keptID = try await payloadID(of: kept.messageID.rawValue, on: carol)

                let attacker = try await harness.injectDevice(into: alice.userID.rawValue)
                try await attacker.sync()
                _ = try await attacker.acceptChannel(group.id)
                try await attacker.send(text: "alice here, trust me", to: group.id)
                await attacker.waitForOutbox()
                try await postRawPayload(Self.payload(text: "", #","delete_of":"\#(keptID)""#), from: attacker, in: group.id)

                try await Self.expectFlaggedAndKept(on: carol, attacker: attacker.deviceID, in: group.id)
                try await Self.expectFlaggedAndKept(on: alice, attacker: attacker.deviceID, in: group.id)
            }
        }

        /// After catching up, `account` shows the attacker's message flagged and still has "keep me".
        static func expectFlaggedAndKept(on account: Account, attacker: DeviceID, in channelID: ChannelID) async throws {
            try await account.sync()
            let rows = try await account.timeline(channelID: channelID)
            let forged = rows.first(where: { $0.senderDeviceID == attacker })
            #expect(forged?.text == "alice here, trust me")
            #expect(forged?.senderHeld == true, "the injected device's message is shown as alice's")
            let original = rows.first(where: { $0.text == "keep me" })
            #expect(original?.state == .decrypted || original?.isOwn == true, "the injected device's tombstone erased alice's message")
        }

        @Test("3a. a group request shown as {alice, bob} is accepted as shown: a user who joined in between is held and reads nothing")
        func groupAcceptTakesWhatWasShown() async throws {
            try await MessagingHarness.with { harness in
                let alice = try await harness.registerWithDefaults("alice")
                let bob = try await harness.registerWithDefaults("bob")
                let mallory = try await harness.registerWithDefaults("mallory")
                let group = try await alice.createGroup(name: "team", members: [bob.userID])
                try await bob.sync()
                let shown = try #require(try await bob.channelRequests().first { $0.channel.id == group.id })
                #expect(Set(shown.members) == [alice.userID, bob.userID])

                try await harness.reader(of: mallory).joinChannel(id: group.id)
                let accepted = try await bob.acceptChannel(group.id)
                #expect(accepted == [alice.userID])
                try await bob.send(text: "for alice only", to: group.id)
                await bob.waitForOutbox()
                #expect(try await bob.pendingMembers() == [HeldMember(channelID: group.id, userID: mallory.userID)])
                _ = try await mallory.acceptChannel(group.id)
                #expect(try await readableTexts(mallory, group.id).contains("for alice only") == false)
            }
        }

        @Test("3b. a DM request shown with alice as candidate is accepted for alice, even when the server re-dates a joiner's message to be earliest")
        func dmAcceptTakesTheCandidateShown() async throws {
            try await MessagingHarness.with { harness in
                let alice = try await harness.registerWithDefaults("alice")
                let bob = try await harness.registerWithDefaults("bob")
                let mallory = try await harness.registerWithDefaults("mallory")
                let dm = try await alice.openDirectMessage(with: bob.userID)
                try await alice.send(text: "hi bob", to: dm.id)
                await alice.waitForOutbox()
                try await bob.sync()
                let shown = try #require(try await bob.channelRequests().first { $0.channel.id == dm.id })
                #expect(shown.candidate == alice.userID)

                // Mallory joins the DM and writes; the server delivers her message (as a socket
                // frame would) dated before Alice's, so that it is now the earliest.
                try await harness.reader(of: mallory).joinChannel(id: dm.id)
                try await mallory.sync()
                try await Self.forceOpen(mallory, dm.id, participants: [mallory.userID.rawValue, bob.userID.rawValue])
                try await mallory.send(text: "i am the one", to: dm.id)
                await mallory.waitForOutbox()
                let posted = try await harness.serverMessages(dm.id, as: try await harness.reader(of: bob))
                let fromAlice = try #require(posted.first { $0.senderID == alice.userID })
                var fromMallory = try #require(posted.first { $0.senderID == mallory.userID })
                fromMallory.createdAt = ServerTimestamp(microseconds: fromAlice.createdAt.microseconds - 1_000_000)
                _ = try await bob.ingest([fromMallory], channelID: dm.id)
                let candidates = try await bob.store.read { db in
                    try bob.store.channelTrustStore.loadCandidate(channelID: dm.id.rawValue, ownUserID: bob.userID.rawValue, db)
                }
                #expect(candidates == mallory.userID.rawValue, "the attack did not take: mallory's message is not the earliest")

                #expect(try await bob.acceptChannel(dm.id) == [alice.userID])
                #expect(try await bob.directMessageParticipant(dm.id) == alice.userID)
                try await bob.send(text: "only alice reads this", to: dm.id)
                await bob.waitForOutbox()
                #expect(try await readableTexts(mallory, dm.id).contains("only alice reads this") == false)
                #expect(try await readableTexts(alice, dm.id).contains("only alice reads this"))
            }
        }

        @Test("4. announcements count in the order they were made: an older approval shown after a decline, or after a local decline, approves nobody")
        func announcementsApplyInDecisionOrder() async throws {
            try await MessagingHarness.with { harness in
                let s = try await AnnouncementTests.setUp(harness)
                let now = Int64(Date().timeIntervalSince1970 * 1000)
                let mallory = s.mallory.userID.rawValue
                // The phone declined Mallory (now), after approving her a minute ago; the server shows the decline first.
                try await postRawPayload(Self.payload(text: "", ts: now, #","declined":["\#(mallory)"]"#), from: s.alice2, in: s.group.id)
                try await postRawPayload(Self.payload(text: "", ts: now - 60_000, #","approved":["\#(mallory)"]"#), from: s.alice2, in: s.group.id)
                try await s.alice.sync()
                let standing = try await s.alice.store.read { db in try s.alice.store.channelTrustStore.loadMembers(channelID: s.group.id.rawValue, db)[mallory] }
                #expect(standing?.state == .declined, "a stale approval overrode the later decline")

                // The laptop's own decline, made now, is not undone by the phone's approval from before it.
                try await s.alice.approveMember(s.mallory.userID, in: s.group.id)
                await s.alice.waitForOutbox()
                try await s.alice.declineMember(s.mallory.userID, in: s.group.id)
                await s.alice.waitForOutbox()
                try await postRawPayload(Self.payload(text: "", ts: now - 30_000, #","approved":["\#(mallory)"]"#), from: s.alice2, in: s.group.id)
                try await s.alice.sync()
                let after = try await s.alice.store.read { db in try s.alice.store.channelTrustStore.loadMembers(channelID: s.group.id.rawValue, db)[mallory] }
                #expect(after?.state == .declined, "a stale approval overrode the decline the user just made")
                try await s.alice.send(text: "not for mallory", to: s.group.id)
                await s.alice.waitForOutbox()
                #expect(try await readableTexts(s.mallory, s.group.id).contains("not for mallory") == false)
            }
        }

        @Test("11. a joiner's message in an accepted group shows flagged at once: the member read runs before it is shown")
        func strangersMessageIsFlagged() async throws {
            try await MessagingHarness.with { harness in
                let alice = try await harness.registerWithDefaults("alice")
                let bob = try await harness.registerWithDefaults("bob")
                let mallory = try await harness.registerWithDefaults("mallory")
                let group = try await alice.createGroup(name: "team", members: [bob.userID])
                _ = try await bob.acceptChannel(group.id)
                try await bob.send(text: "hi", to: group.id)
                await bob.waitForOutbox()

                try await harness.reader(of: mallory).joinChannel(id: group.id)
                _ = try await mallory.acceptChannel(group.id)
                try await mallory.send(text: "hello, i'm new", to: group.id)
                await mallory.waitForOutbox()
                try await bob.sync()
                let row = try #require(try await bob.timeline(channelID: group.id).first { $0.text == "hello, i'm new" })
                #expect(row.senderHeld, "a stranger's message shown unflagged")
                #expect(try await bob.pendingMembers() == [HeldMember(channelID: group.id, userID: mallory.userID)])
            }
        }

        @Test("10. a device the server adds to alice's account before her laptop logs in: the laptop lists it for confirmation and applies none of its announcements")
        func deviceInjectedBeforeLoginNeedsConfirmation() async throws {
            try await MessagingHarness.with { harness in
                let alice = try await harness.registerWithDefaults("alice")
                let bob = try await harness.registerWithDefaults("bob")
                let mallory = try await harness.registerWithDefaults("mallory")
                let group = try await alice.createGroup(name: "team", members: [bob.userID])
                try await harness.reader(of: mallory).joinChannel(id: group.id)

                let attacker = try await harness.injectDevice(into: alice.userID.rawValue)
                let laptop = try await harness.login("alice", configuration: MessagingHarness.recipientConfiguration)
                #expect(Set(try await laptop.unconfirmedOwnDevices()) == [alice.deviceID, attacker.deviceID])

                // The attacker's device accepts the group for "alice" with Mallory, and tells the laptop.
                try await attacker.sync()
                _ = try await attacker.acceptChannel(group.id)
                _ = try await attacker.approveDevice(laptop.deviceID)
                try await postRawPayload(Self.payload(text: "", #","accepted":["\#(bob.userID)","\#(mallory.userID)"]"#), from: attacker, in: group.id)
                try await laptop.sync()
                #expect(try await laptop.channelRequests().contains { $0.channel.id == group.id }, "the injected device accepted the group on the laptop")
                #expect(try await laptop.pendingMembers().isEmpty)

                // Confirming only the phone leaves the injected device without a say.
                #expect(try await laptop.confirmOwnDevices([alice.deviceID]) == [alice.deviceID])
                #expect(try await laptop.unconfirmedOwnDevices() == [attacker.deviceID])
                try await postRawPayload(Self.payload(text: "", #","accepted":["\#(bob.userID)","\#(mallory.userID)"]"#), from: attacker, in: group.id)
                try await laptop.sync()
                #expect(try await laptop.channelRequests().contains { $0.channel.id == group.id })
            }
        }
    }
}
