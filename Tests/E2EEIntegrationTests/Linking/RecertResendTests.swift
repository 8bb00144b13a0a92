import E2EECrypto
import E2EEDevServer
import E2EEKeyStore
@testable import E2EEMessaging
import Foundation
import Synchronization
import Testing

extension IntegrationTests {
    /// docs/spec/protocol.md §10.13: a recert the kept device has not listed yet is posted again
    /// as the stored envelope, at most daily — also by a primary that restarted in between.
    @Suite("Resending a recert")
    struct RecertResendTests {
        static let day: Int64 = 86_400

        @Test("a restarted primary posts nothing new for a recert the offline laptop has not listed; a day on it posts the same envelope again, which the laptop adopts once")
        func storedEnvelopeSurvivesRestart() async throws {
            try await MessagingHarness.with { harness in
                var scene = try await OwnUserKeyScene.make(harness)
                defer { scene.cleanUp() }
                var laptop = try await harness.login("bob", configuration: MessagingHarness.recipientConfiguration)
                let bobLog = EventLog(scene.bob)
                let laptopID = laptop.deviceID
                try await LinkCeremonyIntegrationTests.link(laptop, to: scene.bob)
                try await LinkCeremonyIntegrationTests.pump(scene.bob, laptop, until: bobLog) { $0 == .linking(.trustSent(to: laptopID)) }
                let tablet = try await harness.login("bob", deviceName: "tablet", configuration: MessagingHarness.recipientConfiguration)
                let tabletID = tablet.deviceID
                try await LinkCeremonyIntegrationTests.link(tablet, to: scene.bob)
                try await LinkCeremonyIntegrationTests.pump(scene.bob, tablet, until: bobLog) { $0 == .linking(.trustSent(to: tabletID)) }
                await scene.bob.waitForOutbox()
                await laptop.waitForOutbox()
                await laptop.shutdown()

                // The laptop is away; the primary removes the tablet and posts the laptop its epoch-2 recert.
                var recorder = try await Self.restartBob(&scene, offset: 0, harness: harness)
                try await scene.bob.removeDevice(tablet.deviceID)
                await scene.bob.waitForOutbox()
                let first = recorder.linkEnvelopes
                #expect(first.count == 1, "setting up: one recert, to the laptop: \(first.count)")

                // A restart within the day: the recert is unlisted, but it was posted already.
                recorder = try await Self.restartBob(&scene, offset: 0, harness: harness)
                await scene.bob.waitForOutbox()
                #expect(recorder.linkEnvelopes.isEmpty, "the restarted primary encrypted the recert again")

                // A day on: the stored envelope goes again, byte for byte.
                recorder = try await Self.restartBob(&scene, offset: Self.day + 60, harness: harness)
                await scene.bob.waitForOutbox()
                #expect(recorder.linkEnvelopes == first, "the resend was not the stored envelope")

                // The laptop back: it adopts epoch 2 (the copy is a duplicate there).
                laptop = try await Account.open(server: try await harness.client(restoring: laptop.store), store: laptop.store,
                                                configuration: MessagingHarness.recipientConfiguration)
                let back = laptop
                let adopted = await eventually(within: .seconds(10)) {
                    try? await back.sync()
                    return (try? await back.ownUserKey().epoch) == 2
                }
                #expect(adopted, "the laptop never adopted its recert")
                #expect(try await KeptRenewalTests.listedCertificate(of: laptop, harness: harness)?.epoch == 2)
                await tablet.shutdown()
                await laptop.shutdown()
                await scene.bob.shutdown()
                await scene.alice.shutdown()
            }
        }

        /// Bob's primary stops and starts again through a recorder of its link posts.
        private static func restartBob(_ scene: inout OwnUserKeyScene, offset: Int64, harness: MessagingHarness) async throws -> LinkPostRecorder {
            await scene.bob.shutdown()
            let recorder = LinkPostRecorder(try await harness.client(restoring: scene.bob.store))
            scene.bob = try await Account.open(server: recorder, store: scene.bob.store, configuration: scene.configuration(offset: offset))
            return recorder
        }
    }
}

/// Records the content of every link envelope posted through it.
final class LinkPostRecorder: ForwardingChatServer, @unchecked Sendable {
    let base: any ChatServerAPI
    private let posted = Mutex<[String]>([])

    init(_ base: any ChatServerAPI) { self.base = base }

    /// The link envelopes posted so far, in order.
    var linkEnvelopes: [String] { posted.withLock { $0 } }

    func sendMessage(channelID: ChannelID, _ message: OutgoingMessage) async throws -> ServerMessage {
        let sent = try await base.sendMessage(channelID: channelID, message)
        if message.contentType == LinkEnvelope.contentType { posted.withLock { $0.append(message.content) } }
        return sent
    }
}
