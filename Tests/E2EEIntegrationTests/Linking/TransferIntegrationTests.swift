import E2EECrypto
import E2EEDevServer
@_spi(StoreInternals) import E2EEKeyStore
@testable import E2EEMessaging
import Foundation
import GRDB
import Testing

extension IntegrationTests {
    /// docs/spec/protocol.md §11.3–§11.6 against the development server: the transfer's trust
    /// part survives lost posts and restarts of either end (each record once, digests checked,
    /// the channel deleted at the end, the primary never more than 16 messages past the highest
    /// acknowledgement), and phase 2 carries what the primary decided after the snapshot.
    @Suite("Link transfer")
    struct TransferIntegrationTests {
        @Test("K34 (in process): three link posts dropped, both ends restarted mid-transfer: each record once, digests match, channel deleted, window kept")
        func underLoss() async throws {
            try await MessagingHarness.with { harness in
                var scene = try await OwnUserKeyScene.make(harness)
                defer { scene.cleanUp() }
                for index in 0..<8 { _ = try await scene.bob.createGroup(name: "group \(index)", members: [scene.alice.userID]) }
                try await Self.restartPrimary(&scene, harness: harness)
                var laptop = try await harness.login("bob", configuration: MessagingHarness.recipientConfiguration)
                let faults = harness.server.faults
                try await LinkCeremonyIntegrationTests.link(laptop, to: scene.bob) {
                    // The primary's first three transfer posts (manifest 1 and two chunks) are lost.
                    await faults.dropPosts(contentType: LinkEnvelope.contentType, count: 3)
                }
                let restartedLaptop = try await Self.runWithRestarts(&scene, &laptop, harness: harness)
                #expect(restartedLaptop)
                let received = try #require(try await laptop.transfers().first)
                let sent = try #require(try await scene.bob.transfers().first)
                #expect(received.state == .done, "\(received)")
                #expect(sent.state == .done, "\(sent)")
                #expect(received.recordsExpected == sent.recordsExpected && received.recordsDone == received.recordsExpected,
                        "each record held once: \(received.recordsDone) of \(received.recordsExpected ?? -1)")
                #expect((received.recordsExpected ?? 0) > 16, "setting up: more records (one a chunk) than the window")
                var listed = true
                for _ in 0..<50 where listed {
                    listed = try await harness.client(restoring: laptop.store).channels().contains { $0.name == "e2ee-transfer" }
                    if listed { try await Task.sleep(for: .milliseconds(100)) }
                }
                #expect(!listed, "the transfer channel is deleted")
                let kept = try await laptop.store.read { db in
                    try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM timeline WHERE plaintext IS NOT NULL AND channel_id IN (SELECT channel_id FROM transfer_incoming)") ?? -1
                }
                #expect(kept == 0, "opened transfer messages are wiped at the end")
                #expect(try await laptop.channelRequests().isEmpty, "the groups arrive accepted")
                await laptop.shutdown()
                await scene.bob.shutdown()
                await scene.alice.shutdown()
            }
        }

        @Test("K39: a group request the primary declines after manifest 1 is declined on the new device after phase 2")
        func declinedAfterSnapshot() async throws {
            try await MessagingHarness.with { harness in
                var scene = try await OwnUserKeyScene.make(harness)
                defer { scene.cleanUp() }
                let carol = try await harness.registerWithDefaults("carol")
                let group = try await carol.createGroup(name: "carol's", members: [scene.bob.userID])
                _ = try await scene.bob.refreshChannels()
                #expect(try await scene.bob.channelRequests().contains { $0.channel.id == group.id }, "setting up: a request on the primary")
                try await Self.restartPrimary(&scene, harness: harness)
                let laptop = try await harness.login("bob", configuration: MessagingHarness.recipientConfiguration)
                try await LinkCeremonyIntegrationTests.link(laptop, to: scene.bob)
                // Manifest 1 goes with the window on ack(0); once the snapshot is taken the primary declines.
                var started: TransferProgress?
                for _ in 0..<50 where started == nil {
                    await scene.bob.waitForOutbox()
                    started = try await scene.bob.transfers().first
                    if started == nil { try await Task.sleep(for: .milliseconds(100)) }
                }
                #expect(started?.state == .running, "setting up: the transfer runs")
                try await scene.bob.declineChannel(group.id)
                for _ in 0..<30 {
                    await scene.bob.waitForOutbox()
                    try await laptop.sync()
                    await laptop.waitForOutbox()
                    try await scene.bob.sync()
                    if try await laptop.transfers().first?.state == .done { break }
                    try await Task.sleep(for: .milliseconds(200))
                }
                #expect(try await laptop.transfers().first?.state == .done)
                let standing = try await laptop.store.read { db in
                    try String.fetchOne(db, sql: "SELECT standing FROM channel_pins WHERE channel_id = ?", arguments: [group.id.rawValue])
                }
                #expect(standing == "declined", "the decline made after the snapshot reached the new device in phase 2")
                await laptop.shutdown()
                await carol.shutdown()
                await scene.bob.shutdown()
                await scene.alice.shutdown()
            }
        }

        /// The primary's stored state never lets it run more than 16 messages past the highest acknowledgement.
        /// Carries the transfer between the two until both ends are done (at most 60 rounds),
        /// restarting the laptop once it holds a record and the primary a few rounds later, and
        /// checking the window every round; returns whether the laptop was restarted.
        static func runWithRestarts(_ scene: inout OwnUserKeyScene, _ laptop: inout Account, harness: MessagingHarness) async throws -> Bool {
            var restartedLaptop = false, restartedPrimary = false
            for round in 0..<60 {
                await scene.bob.waitForOutbox()
                try await laptop.sync()
                await laptop.waitForOutbox()
                try await scene.bob.sync()
                try await expectWindowKept(scene.bob)
                let received = try #require(try await laptop.transfers().first)
                if received.state == .done, try await scene.bob.transfers().first?.state == .done { break }
                if case .failed(let reason) = received.state { throw Failure("the transfer failed: \(reason)") }
                if !restartedLaptop, received.recordsDone > 0 {
                    laptop = try await restart(laptop, harness: harness)
                    restartedLaptop = true
                } else if restartedLaptop, !restartedPrimary, round > 3 {
                    try await restartPrimary(&scene, harness: harness)
                    restartedPrimary = true
                }
                try await Task.sleep(for: .milliseconds(300))
            }
            return restartedLaptop
        }

        static func expectWindowKept(_ primary: Account) async throws {
            for state in try await primary.store.outgoingTransfers() {
                #expect(state.sentUpTo <= state.highestAck + 16, "sent up to \(state.sentUpTo), highest ack \(state.highestAck)")
            }
        }

        /// Bob's primary reopened with one record a chunk (so a small account fills more than a window).
        static func restartPrimary(_ scene: inout OwnUserKeyScene, harness: MessagingHarness) async throws {
            await scene.bob.shutdown()
            var configuration = scene.configuration()
            configuration.debugTransferRecordsPerChunk = 1
            scene.bob = try await Account.open(server: try await harness.client(restoring: scene.bob.store), store: scene.bob.store,
                                               configuration: configuration)
        }

        /// The laptop stopped and reopened on its store.
        static func restart(_ laptop: Account, harness: MessagingHarness) async throws -> Account {
            await laptop.shutdown()
            return try await Account.open(server: try await harness.client(restoring: laptop.store), store: laptop.store,
                                          configuration: MessagingHarness.recipientConfiguration)
        }
    }
}

extension IntegrationTests.TransferIntegrationTests {
    @Test("a transfer the primary cancels fails on the new device; retryTransfer sends a new grant in a new channel and the linked device takes it")
    func cancelThenRetry() async throws {
        try await MessagingHarness.with { harness in
            var scene = try await OwnUserKeyScene.make(harness)
            defer { scene.cleanUp() }
            for index in 0..<3 { _ = try await scene.bob.createGroup(name: "group \(index)", members: [scene.alice.userID]) }
            try await Self.restartPrimary(&scene, harness: harness)
            let laptop = try await harness.login("bob", configuration: MessagingHarness.recipientConfiguration)
            let faults = harness.server.faults
            // The primary's first window is lost, so the transfer is still running when it is cancelled.
            try await IntegrationTests.LinkCeremonyIntegrationTests.link(laptop, to: scene.bob, beforeTransfer: { await faults.dropPosts(contentType: LinkEnvelope.contentType, count: 16) })
            let first = try await Self.startedTransfer(on: scene.bob)
            #expect(first.state == .running, "setting up: \(first)")
            await scene.bob.waitForOutbox()
            await faults.dropPosts(contentType: LinkEnvelope.contentType, count: 0)
            try await scene.bob.cancelTransfer(first.id)
            let laptopTransfers = try await laptop.transfers()
            try await Self.pump(scene.bob, laptop, "the cancel \(laptopTransfers)") { try await laptop.transfers().first.map { if case .failed = $0.state { true } else { false } } ?? false }
            _ = try await laptop.refreshChannels()
            #expect(try await laptop.channelRequests().count >= 3, "setting up: nothing imported, the groups are requests")

            let retried = try await scene.bob.retryTransfer(to: laptop.deviceID)
            #expect(retried != first.id)
            try await Self.pump(scene.bob, laptop, "the retry") { try await laptop.transfers().contains { $0.id == retried && $0.state == .done } }
            #expect(try await scene.bob.transfers().first { $0.id == retried }?.state == .done)
            _ = try await laptop.refreshChannels()
            #expect(try await laptop.channelRequests().isEmpty, "the retried trust part was imported")
            await laptop.shutdown()
            await scene.bob.shutdown()
            await scene.alice.shutdown()
        }
    }

    /// The primary's first transfer, once it has started (within about five seconds).
    static func startedTransfer(on primary: Account) async throws -> TransferProgress {
        var started: TransferProgress?
        for _ in 0..<50 where started == nil {
            await primary.waitForOutbox()
            started = try await primary.transfers().first
            if started == nil { try await Task.sleep(for: .milliseconds(100)) }
        }
        return try #require(started)
    }

    /// Carries both devices' posts back and forth until `done` holds (at most 40 rounds).
    static func pump(_ primary: Account, _ laptop: Account, _ what: String = "", until done: () async throws -> Bool) async throws {
        for _ in 0..<40 {
            await primary.waitForOutbox()
            try await laptop.sync()
            await laptop.waitForOutbox()
            try await primary.sync()
            if try await done() { return }
            try await Task.sleep(for: .milliseconds(200))
        }
        throw Failure("the condition never held: \(what) now \(try await laptop.transfers()) primary \(try await primary.transfers())")
    }
}

extension IntegrationTests.TransferIntegrationTests {
    @Test("skipTransfer after a failed transfer: a contact's key pinned here is provisional; a retried trust part replaces it and the skip ends")
    func skipThenRetry() async throws {
        try await MessagingHarness.with { harness in
            var scene = try await OwnUserKeyScene.make(harness)
            defer { scene.cleanUp() }
            // Carol has a user key; Bob's primary pinned it.
            let carol = try await harness.registerWithDefaults("carol")
            try await KeyedContact.certify(carol, by: Ed25519.PrivateKey(), notAfter: UInt32(KeyedContact.wallClock() + 20 * 86_400))
            _ = try await scene.bob.directory.devices(of: carol.userID, refresh: true)
            #expect(try await scene.bob.userKey(of: carol.userID).state == .pinned, "setting up: the primary pinned Carol's key")
            try await Self.restartPrimary(&scene, harness: harness)
            let laptop = try await harness.login("bob", configuration: MessagingHarness.recipientConfiguration)
            let faults = harness.server.faults
            try await IntegrationTests.LinkCeremonyIntegrationTests.link(laptop, to: scene.bob, beforeTransfer: { await faults.dropPosts(contentType: LinkEnvelope.contentType, count: 16) })
            let first = try await Self.startedTransfer(on: scene.bob)
            await scene.bob.waitForOutbox()
            await faults.dropPosts(contentType: LinkEnvelope.contentType, count: 0)
            await #expect(throws: MessagingError.self, "nothing failed yet: no skip") { try await laptop.skipTransfer() }
            try await scene.bob.cancelTransfer(first.id)
            try await Self.pump(scene.bob, laptop, "the cancel") {
                try await laptop.transfers().first.map { if case .failed = $0.state { true } else { false } } ?? false
            }
            try await laptop.skipTransfer()
            // The laptop meets Carol's listing itself: her key is pinned here, provisionally.
            _ = try await laptop.directory.devices(of: carol.userID, refresh: true)
            #expect(try await laptop.store.provisionalPins() == [carol.userID.rawValue], "a pin after a skip is provisional")

            let retried = try await scene.bob.retryTransfer(to: laptop.deviceID)
            try await Self.pump(scene.bob, laptop, "the retry") { try await laptop.transfers().contains { $0.id == retried && $0.state == .done } }
            #expect(try await laptop.store.provisionalPins().isEmpty, "the primary's trust part replaced the provisional pin")
            await laptop.shutdown()
            await carol.shutdown()
            await scene.bob.shutdown()
            await scene.alice.shutdown()
        }
    }
}
