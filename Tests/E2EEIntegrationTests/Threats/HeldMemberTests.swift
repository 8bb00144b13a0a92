import E2EECrypto
import E2EEDevServer
import E2EEKeyStore
import E2EEMessaging
import E2EETransport
import Foundation
import Testing

extension IntegrationTests {
    /// docs/spec/protocol.md §5 "New members are held" and "New devices are held", THREATS T11:
    /// whoever the server lists after this device created or accepted a group — a stranger who
    /// `join`s, a member who left and came back, a device added to a member or to our own user
    /// — gets nothing until the app approves it, whatever the channel's policy.
    @Suite("Held members and devices")
    struct HeldMemberTests {
        @Test("a stranger who joins a group gets nothing, under surface too, until approved; then reads from the approval on")
        func strangerJoinIsHeld() async throws {
            try await MessagingHarness.with { harness in
                let alice = try await harness.registerWithDefaults("alice")
                let bob = try await harness.registerWithDefaults("bob")
                let mallory = try await harness.registerWithDefaults("mallory")
                let group = try await alice.createGroup(name: "team", members: [bob.userID])
                try await harness.accept(group, on: [bob])
                try await alice.setRecipientPolicy(.surface, channelID: group.id)
                try await alice.send(text: "one", to: group.id)
                await alice.waitForOutbox()

                try await harness.reader(of: mallory).joinChannel(id: group.id)
                let events = alice.events()
                let report = try await alice.send(text: "two", to: group.id)
                await alice.waitForOutbox()
                #expect(report.recipients.heldMembers == [mallory.userID])
                let held = await firstEvent(in: events) { if case .identity(.memberHeld) = $0 { true } else { false } }
                #expect(held == .identity(.memberHeld(channelID: group.id, userID: mallory.userID)))
                #expect(try await alice.pendingMembers() == [HeldMember(channelID: group.id, userID: mallory.userID)])
                let posted = try await harness.serverMessages(group.id, as: harness.reader(of: bob))
                #expect(try posted.allSatisfy { try !recipientDevices(of: $0).contains(mallory.deviceID) })
                #expect(try await readableTexts(mallory, group.id).isEmpty)

                try await alice.approveMember(mallory.userID, in: group.id)
                #expect(try await alice.pendingMembers().isEmpty)
                try await alice.send(text: "three", to: group.id)
                await alice.waitForOutbox()
                _ = try await mallory.acceptChannel(group.id)
                #expect(try await readableTexts(mallory, group.id) == ["three"])
                #expect(try await readableTexts(bob, group.id) == ["one", "two", "three"])
            }
        }

        @Test("a member who left and joins again is held (gone after two reads 2 s apart), whatever the policy")
        func rejoinAfterLeavingIsHeld() async throws {
            try await MessagingHarness.with { harness in
                let alice = try await harness.registerWithDefaults("alice")
                let bob = try await harness.registerWithDefaults("bob")
                let carol = try await harness.registerWithDefaults("carol")
                let group = try await alice.createGroup(name: "team", members: [bob.userID, carol.userID])
                try await harness.accept(group, on: [bob, carol])
                try await alice.setRecipientPolicy(.surface, channelID: group.id)
                try await alice.send(text: "welcome", to: group.id)
                await alice.waitForOutbox()
                #expect(try await readableTexts(carol, group.id) == ["welcome"])

                try await carol.leave(group.id)
                try await alice.send(text: "carol left", to: group.id)
                await alice.waitForOutbox()
                try await Task.sleep(nanoseconds: 2_100_000_000)
                try await alice.send(text: "still gone", to: group.id)
                await alice.waitForOutbox()

                try await harness.reader(of: carol).joinChannel(id: group.id)
                let back = try await alice.send(text: "secret", to: group.id)
                await alice.waitForOutbox()
                #expect(back.recipients.heldMembers == [carol.userID])
                #expect(try await readableTexts(carol, group.id) == ["welcome"])
                #expect(try await readableTexts(bob, group.id) == ["welcome", "carol left", "still gone", "secret"])
            }
        }

        @Test("a device the server adds to a group member after first contact is held under surface; one approval covers every channel")
        func deviceAddedToMemberIsHeld() async throws {
            try await MessagingHarness.with { harness in
                let alice = try await harness.registerWithDefaults("alice")
                let bob = try await harness.registerWithDefaults("bob")
                let group = try await alice.createGroup(name: "team", members: [bob.userID])
                try await harness.accept(group, on: [bob])
                let other = try await alice.createGroup(name: "other", members: [bob.userID])
                try await harness.accept(other, on: [bob])
                try await alice.setRecipientPolicy(.surface)
                try await alice.send(text: "one", to: group.id)
                await alice.waitForOutbox()

                let attacker = try await harness.injectDevice(into: bob.userID.rawValue)
                let report = try await alice.send(text: "two", to: group.id)
                await alice.waitForOutbox()
                let injected = RecipientDevice(userID: bob.userID, deviceID: attacker.deviceID)
                #expect(report.recipients.held == [injected])
                #expect(try await readableTexts(attacker, group.id).isEmpty)
                #expect(try await readableTexts(bob, group.id) == ["one", "two"])

                #expect(try await alice.approveDevice(attacker.deviceID) == [group.id])
                let elsewhere = try await alice.send(text: "hello other", to: other.id)
                await alice.waitForOutbox()
                #expect(elsewhere.recipients.held.isEmpty)
                _ = try await attacker.acceptChannel(other.id)
                #expect(try await readableTexts(attacker, other.id) == ["hello other"])
            }
        }

        @Test("GET /devices failing at registration: no later listing is trusted on first use; an injected own device is held")
        func ownListingFailureTrustsNoLaterListing() async throws {
            try await MessagingHarness.with { harness in
                let store = try KeyStore.inMemory()
                let lying = LyingServer(harness.client(store: store))
                lying.failDeviceListings(3)
                let alice = try await harness.register("alice", store: store, configuration: MessagingHarness.recipientConfiguration) { _ in lying }
                let bob = try await harness.registerWithDefaults("bob")
                let group = try await alice.createGroup(name: "team", members: [bob.userID])
                try await harness.accept(group, on: [bob])

                let attacker = try await harness.injectDevice(into: alice.userID.rawValue)
                let report = try await alice.send(text: "secret", to: group.id)
                await alice.waitForOutbox()
                #expect(report.recipients.held == [RecipientDevice(userID: alice.userID, deviceID: attacker.deviceID)])
                #expect(try await readableTexts(attacker, group.id).isEmpty)
                #expect(try await readableTexts(bob, group.id) == ["secret"])
            }
        }

        @Test("surface on a group does not let a device injected for our own user decrypt")
        func surfaceHoldsInjectedOwnDevice() async throws {
            try await MessagingHarness.with { harness in
                let alice = try await harness.registerWithDefaults("alice")
                let bob = try await harness.registerWithDefaults("bob")
                let group = try await alice.createGroup(name: "team", members: [bob.userID])
                try await harness.accept(group, on: [bob])
                try await alice.setRecipientPolicy(.surface, channelID: group.id)
                try await alice.send(text: "one", to: group.id)
                await alice.waitForOutbox()

                let attacker = try await harness.injectDevice(into: alice.userID.rawValue)
                let report = try await alice.send(text: "two", to: group.id)
                await alice.waitForOutbox()
                #expect(report.recipients.held == [RecipientDevice(userID: alice.userID, deviceID: attacker.deviceID)])
                #expect(try await readableTexts(attacker, group.id).isEmpty)
            }
        }

        @Test("a group request: nothing is sent until accepted; acceptance takes the members listed then; later joiners are held")
        func groupRequestTakesMembersListedAtAcceptance() async throws {
            try await MessagingHarness.with { harness in
                let alice = try await harness.registerWithDefaults("alice")
                let bob = try await harness.registerWithDefaults("bob")
                let mallory = try await harness.registerWithDefaults("mallory")
                let group = try await alice.createGroup(name: "team", members: [bob.userID])
                _ = try await bob.refreshChannels()
                await #expect(throws: MessagingError.channelNotAccepted(channelID: group.id)) { try await bob.send(text: "too early", to: group.id) }
                #expect(try await bob.channelRequests().map(\.members).first.map(Set.init) == [alice.userID, bob.userID])
                #expect(try await bob.acceptChannel(group.id) == [alice.userID])

                try await harness.reader(of: mallory).joinChannel(id: group.id)
                let report = try await bob.send(text: "hello", to: group.id)
                await bob.waitForOutbox()
                #expect(report.recipients.heldMembers == [mallory.userID])
                #expect(try await readableTexts(alice, group.id) == ["hello"])
                #expect(try await readableTexts(mallory, group.id).isEmpty)
            }
        }

        @Test("a held member's message is shown flagged (senderHeld); once approved, it is not")
        func heldSpeakerIsFlagged() async throws {
            try await MessagingHarness.with { harness in
                let alice = try await harness.registerWithDefaults("alice")
                let bob = try await harness.registerWithDefaults("bob")
                let mallory = try await harness.registerWithDefaults("mallory")
                let group = try await alice.createGroup(name: "team", members: [bob.userID])
                try await alice.send(text: "one", to: group.id)
                await alice.waitForOutbox()
                try await harness.reader(of: mallory).joinChannel(id: group.id)
                _ = try await alice.send(text: "two", to: group.id)
                await alice.waitForOutbox()

                _ = try await mallory.acceptChannel(group.id)
                try await mallory.send(text: "let me in", to: group.id)
                await mallory.waitForOutbox()
                try await alice.sync()
                let items = try await alice.timeline(channelID: group.id)
                #expect(items.contains { $0.text == "let me in" })
                #expect(items.map(\.senderHeld) == items.map { $0.text == "let me in" })
                try await alice.approveMember(mallory.userID, in: group.id)
                #expect(try await alice.timeline(channelID: group.id).allSatisfy { !$0.senderHeld })
            }
        }
    }
}
