import E2EECrypto
import E2EEDevServer
import E2EEKeyStore
@testable import E2EEMessaging
import Foundation
import Testing

extension IntegrationTests {
    /// docs/spec/protocol.md §10.8 (text 1.3), attack K16 of the linking proposal: a device the
    /// server adds to Bob floods Alice with 2,000 messages, which all wait as messages from an
    /// unlinked device. The bounds count per device (1,000 each, 5,000 per user, the fullest
    /// device losing its oldest), so the flood evicts only its own: L's messages under Bob's new
    /// key K2, before and after the flood, are still waiting when Alice accepts K2, and decrypt.
    @Suite("A flood of messages from a device the server adds")
    struct PendingFloodTests {
        static let flood = 2_000

        /// `account` sends `text` in `dm` and waits for its outbox.
        static func send(_ text: String, from account: Account, in dm: ChatChannel) async throws {
            let report = try await account.send(text: text, to: dm.id)
            #expect(report.state != .failed, "\(report.failureReason ?? "")")
            await account.waitForOutbox()
        }

        /// The server posts `count` DM messages as `device` of `bob` in `dm`, each one the device's
        /// real prekey message to Alice's device (made here with its identity keys, a fresh X3DH
        /// each, so each decrypts on its own): what the device's own client would post, without
        /// `count` trips through its outbox.
        static func flood(_ count: Int, from device: Account, to alice: Account, in dm: ChatChannel, harness: MessagingHarness) async throws {
            let identity = try StoredKeyConversions.identity(try #require(try await device.store.loadIdentityKeyPair()))
            let listed = try await harness.reader(of: alice).bundle(deviceID: alice.deviceID)
            let bundle = try PrekeyBundle(deviceID: listed.deviceID.rawValue, identityKey: listed.identityKey, signedPreKey: listed.signedPreKey,
                                          signedPreKeySignature: listed.signedPreKeySignature, oneTimePreKey: nil)
            let channel = try WireUUID(text: dm.id.rawValue), sender = try WireUUID(text: device.deviceID.rawValue)
            for index in 0..<count {
                let session = SessionRecord.installing(try X3DH.initiate(localIdentity: identity, bundle: bundle, pinnedIdentity: nil).state, into: nil)
                let payload = try MessagePayload(id: WireUUID(text: UUID().uuidString.lowercased()), timestamp: 1_700_000_000_000 + Int64(index),
                                                 text: "flood \(index)").encodedJSON()
                let envelope = try DMEnvelope.seal(payload: payload, channel: channel, senderDevice: sender, recipients: [bundle.deviceID],
                                                   using: SystemRandom()) { _, plaintext in try session.encrypt(plaintext).message }
                _ = try await harness.server.faults.postAs(userID: device.userID.rawValue, deviceID: device.deviceID.rawValue, channelID: dm.id.rawValue,
                                                           contentType: EnvelopeKind.dm.contentType, content: Envelope.dm(envelope).content())
            }
        }

        /// Every item of `channelID` on `account`, oldest first, read page by page as an app scrolls back.
        static func wholeTimeline(_ account: Account, _ channelID: ChannelID) async throws -> [TimelineItem] {
            var items: [TimelineItem] = []
            var before: TimelinePosition?
            while true {
                let page = try await account.timeline(channelID: channelID, before: before, limit: 500)
                items.insert(contentsOf: page, at: 0)
                guard page.count == 500, let oldest = page.first else { return items }
                before = TimelinePosition(createdAt: oldest.createdAt, messageID: oldest.messageID)
            }
        }

        @Test("K16: 2,000 messages from a server-added device of Bob wait and evict only their own; L's messages under K2 still wait at acceptance, then decrypt")
        func floodEvictsOnlyItsOwn() async throws {
            try await MessagingHarness.with { harness in
                // K1's certificates end in two days: the gate for a change to K2 opens then.
                var scene = try await KeyedContact.make(harness, phoneLifetime: 2 * KeyedContact.day, laptopLifetime: 2 * KeyedContact.day)
                let k2 = Ed25519.PrivateKey()
                try await KeyedContact.certify(scene.laptop, by: k2, notAfter: UInt32(KeyedContact.wallClock() + 40 * KeyedContact.day))
                // Alice reads Bob's listing (as any send of hers would): L is unlinked now, replaced.
                _ = try await scene.alice.devices(of: scene.bob)
                #expect(try await scene.alice.linkedDevices(of: scene.bob) == [scene.phone.deviceID])
                try await Self.send("L under K2, before the flood", from: scene.laptop, in: scene.dm)

                let added = try await harness.injectDevice(into: scene.bob.rawValue)
                try await Self.flood(Self.flood, from: added, to: scene.alice, in: scene.dm, harness: harness)
                try await Self.send("L under K2, after the flood", from: scene.laptop, in: scene.dm)
                try await scene.alice.sync()
                let floodWaits = "unlinked:\(scene.bob)/\(added.deviceID)", laptopWaits = "unlinked:\(scene.bob)/\(scene.laptop.deviceID)"
                var waits = try await MovedClock.unlinkedWaits(scene.alice)
                #expect(waits.filter { $0 == floodWaits }.count == ProtocolLimits.maxUnlinkedWaitsPerDevice)
                #expect(waits.filter { $0 == laptopWaits }.count == 2)
                let refused = try await Self.wholeTimeline(scene.alice, scene.dm.id).filter { $0.senderDeviceID == added.deviceID }
                #expect(refused.filter { $0.state == .undecryptable(.unlinkedDevice) }.count == Self.flood - ProtocolLimits.maxUnlinkedWaitsPerDevice)

                // Past K1's seen_until + 600 s on a confirmed clock: the change to K2 is due.
                scene.alice = try await MovedClock.reopen(scene.alice, daysAhead: 3, harness: harness)
                let blocked = try await scene.alice.send(text: "to Bob", to: scene.dm.id)
                #expect(blocked.state == .failed && blocked.failureReason?.contains("userKeyChangePending") == true, "\(blocked.failureReason ?? "sent")")
                waits = try await MovedClock.unlinkedWaits(scene.alice)
                #expect(waits.filter { $0 == laptopWaits }.count == 2, "L's messages are still waiting at acceptance")

                try await scene.alice.acceptUserKeyChange(of: scene.bob)
                try await scene.alice.sync()
                let items = try await Self.wholeTimeline(scene.alice, scene.dm.id)
                #expect(items.filter { $0.senderDeviceID == scene.laptop.deviceID }.map(\.text) == ["L under K2, before the flood", "L under K2, after the flood"])
                #expect(items.filter { $0.senderDeviceID == added.deviceID }.allSatisfy { $0.state != .decrypted })
                #expect(try await MovedClock.unlinkedWaits(scene.alice).allSatisfy { $0 == floodWaits })
                await scene.alice.shutdown()
            }
        }
    }
}
