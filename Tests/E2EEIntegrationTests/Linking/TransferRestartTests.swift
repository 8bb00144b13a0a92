import E2EECrypto
import E2EEDevServer
@_spi(StoreInternals) import E2EEKeyStore
@testable import E2EEMessaging
import Foundation
import GRDB
import Testing

extension IntegrationTests {
    /// docs/spec/protocol.md §11.4 with §3.17 and §3.14 (attack K35 of the linking proposal): a
    /// link envelope of the primary's, its header moved 5,000 ahead, posted as the primary in
    /// the transfer channel while the transfer runs.
    @Suite("Link transfer: forced restart")
    struct TransferRestartTests {
        @Test("K35: a transfer header 5,000 ahead posted as P, shown to N only: N restarts its ratchet and the transfer completes without the user")
        func restartSeenByNewDeviceOnly() async throws {
            try await MessagingHarness.with { harness in
                var scene = try await OwnUserKeyScene.make(harness)
                defer { scene.cleanUp() }
                let (laptop, transfer) = try await Self.forgedMidTransfer(&scene, harness: harness, visibleToPrimary: false)
                let before = try await laptop.store.sessions(userID: scene.bob.userID.rawValue, deviceID: scene.bob.deviceID.rawValue, limit: 10)
                try await laptop.sync()
                #expect(try await Self.refusedTooFarAhead(on: laptop, channel: transfer.channelID) == 1, "the forged header is refused")
                #expect(try await laptop.transfers().first?.state == .running, "setting up: refused while the transfer runs")
                try await TransferIntegrationTests.pump(scene.bob, laptop, "the transfer after the restart") {
                    try await laptop.transfers().first?.state == .done
                }
                #expect(try await scene.bob.transfers().first?.state == .done)
                let after = try await laptop.store.sessions(userID: scene.bob.userID.rawValue, deviceID: scene.bob.deviceID.rawValue, limit: 10)
                #expect(after.count == before.count + 1, "the laptop restarted its ratchet with the primary: \(before.count) → \(after.count)")
                let received = try #require(try await laptop.transfers().first)
                #expect(received.recordsDone == received.recordsExpected, "each record once")
                #expect(try await laptop.channelRequests().isEmpty, "the trust part arrived")
                await laptop.shutdown()
                await scene.bob.shutdown()
                await scene.alice.shutdown()
            }
        }

        @Test("K35: the same header shown to P too: P finds a rollback, the transfer fails on both, and a retry completes it")
        func restartSeenByPrimaryToo() async throws {
            try await MessagingHarness.with { harness in
                var scene = try await OwnUserKeyScene.make(harness)
                defer { scene.cleanUp() }
                let (laptop, transfer) = try await Self.forgedMidTransfer(&scene, harness: harness, visibleToPrimary: true)
                let events = EventLog(scene.bob)
                try await scene.bob.sync()
                #expect(await events.all().contains { if case .rollbackDetected = $0 { true } else { false } }, "the primary finds its own post it never sent")
                try await Self.failsOnBothThenRetryCompletes(primary: scene.bob, laptop: laptop, transferID: transfer.transferID)
                await laptop.shutdown()
                await scene.bob.shutdown()
                await scene.alice.shutdown()
            }
        }

        @Test("K35's rule on the other side: a rollback the new device finds (a post of its own it never sent) fails the transfer on both, and a retry completes it")
        func rollbackOnNewDevice() async throws {
            try await MessagingHarness.with { harness in
                var scene = try await OwnUserKeyScene.make(harness)
                defer { scene.cleanUp() }
                try await TransferIntegrationTests.restartPrimary(&scene, harness: harness)
                let laptop = try await harness.login("bob", configuration: MessagingHarness.recipientConfiguration)
                let faults = harness.server.faults
                // The primary's first window is lost, so the transfer still runs when the laptop reads the channel.
                try await LinkCeremonyIntegrationTests.link(laptop, to: scene.bob) {
                    await faults.dropPosts(contentType: LinkEnvelope.contentType, count: 16)
                }
                let started = try await TransferIntegrationTests.startedTransfer(on: scene.bob)
                await scene.bob.waitForOutbox()
                await faults.dropPosts(contentType: LinkEnvelope.contentType, count: 0)
                let transfer = try #require(try await laptop.store.incomingTransfers().first { $0.transferID == started.id })
                // A post in the transfer channel under the laptop's own ids, which its store never sent.
                try await harness.server.faults.postAs(userID: laptop.userID.rawValue, deviceID: laptop.deviceID.rawValue,
                                                       channelID: transfer.channelID, contentType: LinkEnvelope.contentType, content: "AAAA",
                                                       visibleTo: laptop.deviceID.rawValue)
                let events = EventLog(laptop)
                try await laptop.sync()
                #expect(await events.all().contains { if case .rollbackDetected = $0 { true } else { false } }, "the laptop finds a rollback")
                try await Self.failsOnBothThenRetryCompletes(primary: scene.bob, laptop: laptop, transferID: started.id)
                await laptop.shutdown()
                await scene.bob.shutdown()
                await scene.alice.shutdown()
            }
        }

        /// Pumps until the transfer `transferID` failed on both sides, then retries it from the
        /// primary and pumps until the new transfer is done on both, its trust part imported.
        static func failsOnBothThenRetryCompletes(primary: Account, laptop: Account, transferID: String) async throws {
            try await TransferIntegrationTests.pump(primary, laptop, "the failure on both sides") {
                let sent = try await primary.transfers().first { $0.id == transferID }
                let received = try await laptop.transfers().first { $0.id == transferID }
                return Self.failed(sent) && Self.failed(received)
            }
            let retried = try await primary.retryTransfer(to: laptop.deviceID)
            try await TransferIntegrationTests.pump(primary, laptop, "the retry") {
                try await laptop.transfers().contains { $0.id == retried && $0.state == .done }
            }
            #expect(try await primary.transfers().first { $0.id == retried }?.state == .done)
            _ = try await laptop.refreshChannels()
            #expect(try await laptop.channelRequests().isEmpty, "the retried trust part was imported")
        }

        static func failed(_ progress: TransferProgress?) -> Bool {
            if case .failed = progress?.state { true } else { false }
        }

        /// Bob's primary (eight groups, one record a chunk) links a laptop; once the primary
        /// has sent its first window, the envelope it stored for manifest 1 is posted again as
        /// the primary with the laptop's header 5,000 ahead — to the laptop only, or to every
        /// member. Returns the laptop (which has not read the window yet) and its transfer.
        static func forgedMidTransfer(_ scene: inout OwnUserKeyScene, harness: MessagingHarness, visibleToPrimary: Bool) async throws
            -> (Account, IncomingTransferState) {
            for index in 0..<8 { _ = try await scene.bob.createGroup(name: "group \(index)", members: [scene.alice.userID]) }
            try await TransferIntegrationTests.restartPrimary(&scene, harness: harness)
            let laptop = try await harness.login("bob", configuration: MessagingHarness.recipientConfiguration)
            try await LinkCeremonyIntegrationTests.link(laptop, to: scene.bob)
            let started = try await TransferIntegrationTests.startedTransfer(on: scene.bob)
            await scene.bob.waitForOutbox()
            let transfer = try #require(try await laptop.store.incomingTransfers().first { $0.transferID == started.id })
            var posted: String?
            for _ in 0..<50 where posted == nil {
                await scene.bob.waitForOutbox()
                posted = try await scene.bob.store.transferEnvelope(transferID: started.id, index: 0)
                if posted == nil { try await Task.sleep(for: .milliseconds(100)) }
            }
            let stored = try #require(posted, "setting up: manifest 1 posted")
            let genuine = try LinkEnvelope.decode(try Base64.decode(stored, maxEncodedLength: ProtocolLimits.maxContentBase64Length))
            let forged = try LinkEnvelope(senderDevice: genuine.senderDevice, recipientDevice: genuine.recipientDevice,
                                          pairwiseMessage: RatchetRestartTests.ahead(genuine.pairwiseMessage, by: 5_000))
            try await harness.server.faults.postAs(userID: scene.bob.userID.rawValue, deviceID: scene.bob.deviceID.rawValue,
                                                   channelID: transfer.channelID, contentType: LinkEnvelope.contentType, content: forged.content(),
                                                   visibleTo: visibleToPrimary ? nil : laptop.deviceID.rawValue)
            return (laptop, transfer)
        }

        /// How many rows of `channel` the laptop refused as too far ahead.
        static func refusedTooFarAhead(on account: Account, channel: String) async throws -> Int {
            try await account.store.read { db in
                try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM timeline WHERE channel_id = ? AND failure_reason = 'too_far_ahead'",
                                 arguments: [channel]) ?? -1
            }
        }
    }
}
