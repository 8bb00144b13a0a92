import E2EECrypto
import E2EEDevServer
import E2EEKeyStore
import E2EEMessaging
import Foundation
import Testing

extension IntegrationTests {
    /// docs/spec/protocol.md §10.7–§10.8 (text 1.3), attack K3 of the linking proposal, over a
    /// month: a device the server adds to Bob, first with a zero certificate and then with one
    /// under a key of the server's own, writes to Alice. It is never a recipient nor offered for
    /// approval; its messages wait, and 30 days later they are refused (`unlinkedDevice`). The
    /// server's key is surfaced once in all that time. (ServerDeviceTests covers the same device
    /// on the send side within a day.)
    @Suite("A device the server adds, over a month")
    struct ServerDeviceWaitTests {
        static let day = KeyedContact.day

        /// `account` sends `text` in `dm` and waits for its outbox.
        static func send(_ text: String, from account: Account, in dm: ChatChannel) async throws {
            let report = try await account.send(text: text, to: dm.id)
            #expect(report.state != .failed, "\(report.failureReason ?? "")")
            await account.waitForOutbox()
        }

        /// Alice's send to Bob reaches P and L only, and nothing is offered for approval.
        static func expectOnlyBobsDevices(_ scene: KeyedContact, added: Account, _ text: String,
                                          sourceLocation: SourceLocation = #_sourceLocation) async throws {
            let sent = try await scene.send(text)
            #expect(sent.recipients == [scene.phone.deviceID, scene.laptop.deviceID], sourceLocation: sourceLocation)
            #expect(sent.report.recipients.held.isEmpty, sourceLocation: sourceLocation)
            #expect(try await scene.alice.pendingRecipients().isEmpty, sourceLocation: sourceLocation)
            await #expect(throws: MessagingError.deviceIsCertified(deviceID: added.deviceID), sourceLocation: sourceLocation) {
                try await scene.alice.approveDevice(added.deviceID)
            }
        }

        /// The states, oldest first, of the messages `sender` posted in `dm`, as `account` shows them.
        static func states(of sender: DeviceID, in dm: ChatChannel, on account: Account) async throws -> [TimelineItem.State] {
            try await account.timeline(channelID: dm.id, limit: 1_000).filter { $0.senderDeviceID == sender }.map(\.state)
        }

        @Test("K3: a server-added device (zero certificate, then one under the server's key) is never a recipient nor offered; its messages wait and are refused after 30 days; its key is surfaced once")
        func serverDeviceMessagesAreRefusedAfterThirtyDays() async throws {
            try await MessagingHarness.with { harness in
                // Bob's certificates stay current for the whole month.
                var scene = try await KeyedContact.make(harness, phoneLifetime: 40 * Self.day, laptopLifetime: 40 * Self.day)
                let waiting = "unlinked:\(scene.bob)/"
                var log = EventLog(scene.alice)
                let added = try await harness.injectDevice(into: scene.bob.rawValue)
                try await harness.accept(scene.dm, on: [added], between: (scene.alice.userID, scene.bob))

                // It writes with its zero certificate, then with one under the server's own key.
                try await Self.send("from the added device", from: added, in: scene.dm)
                try await Self.expectOnlyBobsDevices(scene, added: added, "beside a zero certificate")
                let serverKey = Ed25519.PrivateKey()
                try await KeyedContact.certify(added, by: serverKey, notAfter: scene.phoneNotAfter)
                try await Self.send("under the server's key", from: added, in: scene.dm)
                try await Self.expectOnlyBobsDevices(scene, added: added, "beside a certificate under another key")
                try await scene.alice.sync()
                #expect(try await MovedClock.unlinkedWaits(scene.alice) == [waiting + added.deviceID.rawValue, waiting + added.deviceID.rawValue])
                #expect(try await Self.states(of: added.deviceID, in: scene.dm, on: scene.alice) == [.pending, .pending])
                var listed = await log.count { if case .otherUserKeyListed = $0 { true } else { false } }

                // Day 29 by Alice's clocks: still waiting, still no recipient.
                scene.alice = try await MovedClock.reopen(scene.alice, daysAhead: 29, harness: harness)
                log = EventLog(scene.alice)
                try await Self.expectOnlyBobsDevices(scene, added: added, "on day 29")
                #expect(try await Self.states(of: added.deviceID, in: scene.dm, on: scene.alice) == [.pending, .pending])
                listed += await log.count { if case .otherUserKeyListed = $0 { true } else { false } }

                // Day 31: more than 30 days after they arrived, both are refused.
                scene.alice = try await MovedClock.reopen(scene.alice, daysAhead: 31, harness: harness)
                log = EventLog(scene.alice)
                try await scene.alice.sync()
                #expect(try await Self.states(of: added.deviceID, in: scene.dm, on: scene.alice) == [.undecryptable(.unlinkedDevice), .undecryptable(.unlinkedDevice)])
                #expect(try await MovedClock.unlinkedWaits(scene.alice).isEmpty)
                try await Self.expectOnlyBobsDevices(scene, added: added, "on day 31")
                listed += await log.count { if case .otherUserKeyListed = $0 { true } else { false } }
                #expect(listed == 1, "the server's key is surfaced once")
                #expect(!(try await readableTexts(scene.alice, scene.dm.id)).contains { $0.hasPrefix("from the added") || $0.hasPrefix("under the server") })
                let readByAdded = try await readableTexts(added, scene.dm.id)
                #expect(!readByAdded.contains("hello") && !readByAdded.contains("on day 31"), "the added device read Alice's messages: \(readByAdded)")
                await scene.alice.shutdown()
            }
        }
    }
}
