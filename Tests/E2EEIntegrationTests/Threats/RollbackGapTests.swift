import E2EECrypto
import E2EEDevServer
@_spi(StoreInternals) import E2EEKeyStore
@testable import E2EEMessaging
import E2EETransport
import Foundation
import Testing

extension IntegrationTests {
    /// Issue 42 items 5 and 6 (docs/spec/protocol.md §3.13): what a catch-up that stopped at its
    /// limit left unread is read by the send gate's scan, whoever read first; the scan waits out
    /// a rate limit with the message queued, goes on where it stopped, and a gap too long to
    /// read renews the keys only when something could have used them.
    @Suite("Rollback gaps: the send gate reads what a catch-up left unread")
    struct RollbackGapTests {
        typealias Files = StoreRollbackTests.AliceFiles

        /// Alice (file store) and Bob share a group; Alice writes, her store is copied, the later
        /// copy writes, the copy is put back; then Bob floods `flood` messages. Alice's files are closed.
        static func restoredAliceAfterAFlood(_ files: Files, _ harness: MessagingHarness, flood: Int) async throws
            -> (bob: Account, group: ChatChannel, aliceDevice: DeviceID) {
            let bob = try await harness.register("bob")
            let firstStore = try KeyStore.open(at: files.url, key: files.key)
            let alice = try await harness.register("alice", store: firstStore)
            let group = try await alice.createGroup(name: "team", members: [bob.userID])
            try await harness.accept(group, on: [bob])
            try await alice.send(text: "before the copy", to: group.id)
            await alice.waitForOutbox()
            let aliceDevice = alice.deviceID
            await alice.shutdown()
            try firstStore.close()
            try files.copy()
            try await StoreRollbackTests.withAlice(files, harness) { alice in
                try await alice.send(text: "sent by the later copy", to: group.id)
                await alice.waitForOutbox()
            }
            try files.restore()
            try await Self.flood(group.id, count: flood, as: try await harness.reader(of: bob))
            return (bob, group, aliceDevice)
        }

        /// Posts `count` junk messages in `channelID`.
        static func flood(_ channelID: ChannelID, count: Int, as poster: HTTPChatServer) async throws {
            for index in 0..<count { _ = try await poster.sendMessage(channelID: channelID, OutgoingMessage(content: "junk \(index)")) }
        }

        /// The (key_id, iteration) of each group envelope `device` posted in `channelID`.
        static func groupPositions(_ channelID: ChannelID, from device: DeviceID, as reader: HTTPChatServer) async throws -> [String] {
            var pager = MessageHistoryPager(server: reader, channelID: channelID, pageSize: 100)
            var messages: [ServerMessage] = []
            while true {
                let page = try await pager.nextPage()
                if page.isEmpty { break }
                messages += page
            }
            return try StoreRollbackTests.groupEnvelopes(in: messages, from: device).map { "\($0.keyID)/\($0.iteration)" }
        }

        /// A configuration whose catch-up reads 10 messages (the scan's bound is 40).
        static var small: AccountConfiguration {
            var configuration = MessagingHarness.testConfiguration
            configuration.catchUpLimit = 10
            return configuration
        }

        @Test("item 5: listen first, then send: the range the listening catch-up left unread is scanned before the send, and the rollback is found")
        func listenThenSendAfterAFloodFindsTheRollback() async throws {
            let files = try Files()
            defer { try? FileManager.default.removeItem(at: files.directory) }
            try await MessagingHarness.with { harness in
                // 30 messages after the later copy's: the catch-up reads 10, the scan the other 21.
                let (bob, group, aliceDevice) = try await Self.restoredAliceAfterAFlood(files, harness, flood: 30)
                try await StoreRollbackTests.withAlice(files, harness, configuration: Self.small) { alice in
                    let events = alice.events()
                    try await alice.sync()  // the app listens before it sends
                    try await alice.send(text: "after listening", to: group.id)
                    await alice.waitForOutbox()
                    #expect(await firstEvent(in: events) { if case .rollbackDetected = $0 { true } else { false } } != nil,
                            "the later copy's message, behind the flood, was read before the send")
                    #expect(try await alice.store.unreadRange(channelID: group.id.rawValue) == nil)
                }
                let positions = try await Self.groupPositions(group.id, from: aliceDevice, as: try await harness.reader(of: bob))
                #expect(positions.count == 3)
                #expect(Set(positions).count == positions.count, "renewed keys: no (key_id, iteration) twice: \(positions)")
            }
        }

        @Test("item 6: a 429 inside the send gate's scan: Retry-After is waited out, the message stays queued, never failed, and goes out")
        func rateLimitedScanKeepsTheMessageQueued() async throws {
            let files = try Files()
            defer { try? FileManager.default.removeItem(at: files.directory) }
            try await MessagingHarness.with { harness in
                let (_, group, _) = try await Self.restoredAliceAfterAFlood(files, harness, flood: 30)
                try await StoreRollbackTests.withAlice(files, harness, configuration: Self.small) { alice in
                    try await alice.sync()
                    let faults = harness.server.faults
                    await faults.faultPages(ofChannel: group.id.rawValue, .status(429))  // each with Retry-After: 1
                    let lifted = Task {
                        try await Task.sleep(for: .milliseconds(1_500))
                        await faults.faultPages(ofChannel: group.id.rawValue, nil)
                    }
                    let report = try await alice.send(text: "through the rate limit", to: group.id)
                    try await lifted.value
                    #expect(report.state != .failed, "a 429 is no refusal: \(report.failureReason ?? "")")
                    #expect(await faults.faultedPageReads(ofChannel: group.id.rawValue) >= 1)
                    await alice.waitForOutbox()
                    #expect(try await alice.outboxEntries(states: [.queued, .sending, .failed]).isEmpty)
                }
            }
        }
    }
}
