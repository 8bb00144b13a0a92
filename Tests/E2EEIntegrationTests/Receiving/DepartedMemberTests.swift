import E2EEDevServer
@_spi(StoreInternals) import E2EEKeyStore
@testable import E2EEMessaging
import E2EETransport
import Foundation
import Testing

extension IntegrationTests {
    /// Issue 17 item 4: a member who left sees what is true for messages sent after she left —
    /// not a recipient — instead of "pending" forever, and the pending queue never retries them.
    @Suite("Departed member")
    struct DepartedMemberTests {
        /// How Carol comes to be out of the group.
        enum Departure: CaseIterable, Sendable {
            /// She leaves through her account.
            case leaves
            /// The server drops her (another client of hers left); her next sync finds the channel gone.
            case removedByServer
        }

        @Test("messages sent after this device left show as not a recipient, are not retried; earlier ones still read",
              arguments: Departure.allCases)
        func messagesAfterLeavingAreNotPending(departure: Departure) async throws {
            try await MessagingHarness.with { harness in
                var configuration = MessagingHarness.testConfiguration
                configuration.memberLifetime = .zero
                let alice = try await harness.register("alice", configuration: configuration)
                let carol = try await harness.register("carol")
                let group = try await alice.createGroup(name: "team", members: [carol.userID])
                try await harness.accept(group, on: [carol])
                try await alice.send(text: "before", to: group.id)
                await alice.waitForOutbox()
                try await carol.sync()

                switch departure {
                case .leaves:
                    try await carol.leave(group.id)
                case .removedByServer:
                    try await harness.reader(of: carol).leaveChannel(id: group.id)
                    try await carol.sync()
                    #expect(try await carol.channels().map(\.id).contains(group.id) == false)
                }
                try await alice.send(text: "after one", to: group.id)
                try await alice.send(text: "after two", to: group.id)
                await alice.waitForOutbox()

                // She re-joins (anyone can, docs/spec/server-api.md) and syncs: the ciphertexts are there, no key for her.
                try await harness.reader(of: carol).joinChannel(id: group.id)
                let events = carol.events()
                try await carol.sync()
                let seen = try await carol.timeline(channelID: group.id)
                #expect(seen.count == 3)
                #expect(seen.first?.state == .decrypted)
                #expect(seen.first?.text == "before")
                #expect(seen.dropFirst().map(\.state) == [.undecryptable(.sentAfterLeaving), .undecryptable(.sentAfterLeaving)])
                #expect(seen.dropFirst().allSatisfy { $0.text == nil })
                #expect(try await carol.store.pendingCount() == 0)
                #expect(try await carol.store.pendingReceives().isEmpty)
                let settled = await firstEvent(in: events) {
                    $0.timelineChanges.contains { $0.kind == .undecryptable(reason: .sentAfterLeaving) }
                }
                #expect(settled != nil)

                // A later sync does not bring them back to pending.
                try await carol.sync()
                #expect(try await carol.timeline(channelID: group.id).dropFirst().map(\.state)
                        == [.undecryptable(.sentAfterLeaving), .undecryptable(.sentAfterLeaving)])
                #expect(try await carol.store.pendingCount() == 0)

                // Back in the group, her device is held until Alice approves it again (docs/spec/protocol.md
                // §5.12: a device back after it was removed is new); from then on what is sent to her reads.
                let held = try await alice.send(text: "held back", to: group.id)
                #expect(held.recipients.held == [RecipientDevice(userID: carol.userID, deviceID: carol.deviceID)])
                try await alice.approveDevice(carol.deviceID)
                try await alice.send(text: "welcome back", to: group.id)
                await alice.waitForOutbox()
                try await carol.sync()
                let now = try await carol.timeline(channelID: group.id)
                #expect(now.last?.state == .decrypted)
                #expect(now.last?.text == "welcome back")
            }
        }
    }
}
