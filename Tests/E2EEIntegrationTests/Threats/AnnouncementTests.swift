import E2EECrypto
import E2EEDevServer
import E2EEKeyStore
@testable import E2EEMessaging
import Foundation
import Testing

extension IntegrationTests {
    /// docs/spec/protocol.md §5.15: a member's decision is announced in the group; our own
    /// trusted devices apply it as their own, anyone else's only prompts the app, and a held
    /// speaker's or a malformed announcement changes nothing.
    @Suite("Announcements")
    struct AnnouncementTests {
        /// Alice on two trusted devices and Bob in a group both of Alice's devices accepted;
        /// Mallory joined it and is held on every device that sent since.
        struct Setup {
            let alice: Account
            let alice2: Account
            let bob: Account
            let mallory: Account
            let group: ChatChannel
        }

        static func setUp(_ harness: MessagingHarness) async throws -> Setup {
            let configuration = MessagingHarness.recipientConfiguration
            let alice = try await harness.register("alice", configuration: configuration)
            let alice2 = try await harness.login("alice", deviceName: "phone", configuration: configuration)
            let bob = try await harness.register("bob", configuration: configuration)
            let mallory = try await harness.register("mallory", configuration: configuration)
            try await harness.trust([alice, alice2])
            let group = try await alice.createGroup(name: "team", members: [bob.userID])
            try await harness.accept(group, on: [alice2, bob])
            try await harness.reader(of: mallory).joinChannel(id: group.id)
            for account in [alice, alice2, bob] {
                _ = try await account.send(text: "hello from \(account.deviceID.rawValue.prefix(4))", to: group.id)
                await account.waitForOutbox()
                #expect(try await account.pendingMembers() == [HeldMember(channelID: group.id, userID: mallory.userID)])
            }
            return Setup(alice: alice, alice2: alice2, bob: bob, mallory: mallory, group: group)
        }

        @Test("an approval on alice's laptop is applied on her phone; bob is only prompted and still holds the member")
        func ownApprovalAppliedOtherPrompted() async throws {
            try await MessagingHarness.with { harness in
                let s = try await Self.setUp(harness)
                let phoneEvents = s.alice2.events()
                let bobEvents = s.bob.events()
                try await s.alice.approveMember(s.mallory.userID, in: s.group.id)
                await s.alice.waitForOutbox()
                try await s.alice2.sync()
                try await s.bob.sync()

                #expect(try await s.alice2.pendingMembers().isEmpty)
                let applied = await firstEvent(in: phoneEvents, within: 5) { if case .announcement = $0 { true } else { false } }
                #expect(applied == .announcement(ChannelAnnouncement(
                    channelID: s.group.id, messageID: (applied.flatMap { if case .announcement(let a) = $0 { a.messageID } else { nil } }) ?? "",
                    senderUserID: s.alice.userID, senderDeviceID: s.alice.deviceID, kind: .approved, named: [.user(s.mallory.userID)], appliedHere: true)))
                let prompt = await firstEvent(in: bobEvents, within: 5) { if case .announcement = $0 { true } else { false } }
                guard case .announcement(let seen)? = prompt else { Issue.record("bob was not prompted"); return }
                #expect(seen.kind == .approved && seen.named == [.user(s.mallory.userID)] && !seen.appliedHere)
                #expect(try await s.bob.pendingMembers() == [HeldMember(channelID: s.group.id, userID: s.mallory.userID)])
                // Neither device shows the announcement as a message.
                for account in [s.alice2, s.bob] {
                    #expect(try await account.timeline(channelID: s.group.id).allSatisfy { $0.text?.isEmpty == false })
                }

                // The phone now sends to Mallory too; Bob still does not.
                try await s.alice2.send(text: "welcome mallory", to: s.group.id)
                try await s.bob.send(text: "not you", to: s.group.id)
                await s.alice2.waitForOutbox()
                await s.bob.waitForOutbox()
                _ = try await s.mallory.acceptChannel(s.group.id)
                let read = try await readableTexts(s.mallory, s.group.id)
                #expect(read.contains("welcome mallory") && !read.contains("not you"))
            }
        }

        @Test("an approved device is announced as a device, not a user: alice's phone hears the device Alice approved on her laptop and approves it too")
        func deviceApprovalNamesADevice() async throws {
            try await MessagingHarness.with { harness in
                let s = try await Self.setUp(harness)
                let bobLaptop = try await harness.login("bob", deviceName: "bob-laptop", configuration: MessagingHarness.recipientConfiguration)
                for account in [s.alice, s.alice2] {
                    _ = try await account.send(text: "bob has a laptop now", to: s.group.id)  // holds it on both of Alice's devices
                    await account.waitForOutbox()
                }
                #expect(try await s.alice2.pendingRecipients().map(\.device.deviceID) == [bobLaptop.deviceID])
                let phoneEvents = s.alice2.events()
                try await s.alice.approveDevice(bobLaptop.deviceID)
                await s.alice.waitForOutbox()
                try await s.alice2.sync()
                let heard = await firstEvent(in: phoneEvents, within: 5) { if case .announcement = $0 { true } else { false } }
                guard case .announcement(let announcement)? = heard else { Issue.record("the phone heard no announcement"); return }
                #expect(announcement.kind == .approved && announcement.appliedHere)
                #expect(announcement.named == [.device(bobLaptop.deviceID)])
                #expect(try await s.alice2.pendingRecipients().isEmpty, "applied here: the phone approved the laptop too")
                await bobLaptop.shutdown()
            }
        }

        @Test("a malformed announcement, or one naming an unknown user, from alice's own device is refused and changes nothing")
        func malformedAnnouncementChangesNothing() async throws {
            try await MessagingHarness.with { harness in
                let s = try await Self.setUp(harness)
                let id = UUID().uuidString.lowercased()
                for bad in [
                    #"{"v":1,"id":"\#(id)","ts":1,"text":"","approved":["\#(s.mallory.userID)","\#(s.mallory.userID)"]}"#,
                    #"{"v":1,"id":"\#(UUID().uuidString.lowercased())","ts":1,"text":"","approved":["\#(s.mallory.userID.rawValue.uppercased())"]}"#,
                    #"{"v":1,"id":"\#(UUID().uuidString.lowercased())","ts":1,"text":"approve","approved":["\#(s.mallory.userID)"]}"#,
                    #"{"v":1,"id":"\#(UUID().uuidString.lowercased())","ts":1,"text":"","approved":["\#(s.mallory.userID)"],"declined":[]}"#,
                ] {
                    try await postRawPayload(bad, from: s.alice, in: s.group.id)
                }
                // Well-formed, but naming a user nobody here knows next to Mallory: refused whole.
                let phoneEvents = s.alice2.events()
                try await postRawPayload(
                    #"{"v":1,"id":"\#(UUID().uuidString.lowercased())","ts":1,"text":"","approved":["\#(s.mallory.userID)","\#(UUID().uuidString.lowercased())"]}"#,
                    from: s.alice, in: s.group.id)
                try await s.alice2.sync()
                #expect(try await s.alice2.pendingMembers() == [HeldMember(channelID: s.group.id, userID: s.mallory.userID)])
                let refused = try await s.alice2.timeline(channelID: s.group.id).filter { $0.state == .undecryptable(.invalidPayload) }
                #expect(refused.count == 4)
                #expect(await firstEvent(in: phoneEvents, within: 1) { if case .announcement = $0 { true } else { false } } == nil)
            }
        }

        @Test("a held member's announcement prompts nothing and approves nobody")
        func heldSpeakersAnnouncementIsIgnored() async throws {
            try await MessagingHarness.with { harness in
                let s = try await Self.setUp(harness)
                let carol = try await harness.register("carol")
                _ = try await s.mallory.acceptChannel(s.group.id)
                let events = s.bob.events()
                try await postRawPayload(
                    #"{"v":1,"id":"\#(UUID().uuidString.lowercased())","ts":1,"text":"","added":["\#(carol.userID)"]}"#, from: s.mallory, in: s.group.id)
                try await s.bob.sync()
                let prompt = await firstEvent(in: events, within: 2) { if case .announcement = $0 { true } else { false } }
                #expect(prompt == nil)
                #expect(try await s.bob.pendingMembers() == [HeldMember(channelID: s.group.id, userID: s.mallory.userID)])
            }
        }
    }
}
