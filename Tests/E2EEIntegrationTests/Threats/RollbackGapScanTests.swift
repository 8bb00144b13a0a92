import E2EEDevServer
@_spi(StoreInternals) import E2EEKeyStore
@testable import E2EEMessaging
import E2EETransport
import Foundation
import Testing

extension IntegrationTests {
    /// Issue 42 item 6 (docs/spec/protocol.md §3.13): the send gate's scan keeps its progress,
    /// and a gap too long to read renews the keys only when something could have used them.
    @Suite("Rollback gaps: the scan goes on where it stopped and renews keys once")
    struct RollbackGapScanTests {
        typealias Files = StoreRollbackTests.AliceFiles

        /// Counts the messages a scan was shown.
        final class Seen: @unchecked Sendable {
            private let lock = NSLock()
            private var count = 0
            func add() { lock.withLock { count += 1 } }
            var total: Int { lock.withLock { count } }
        }

        @Test("a scan cut short goes on where it stopped: the second run reads only what the first did not")
        func scanResumesWhereItStopped() async throws {
            try await MessagingHarness.with { harness in
                let bob = try await harness.register("bob")
                let alice = try await harness.register("alice")
                let group = try await alice.createGroup(name: "team", members: [bob.userID])
                try await harness.accept(group, on: [bob])
                let now = MessagingHarness.testConfiguration.now
                let before = now().microseconds
                try await RollbackGapTests.flood(group.id, count: 60, as: try await harness.reader(of: bob))
                let newest = try #require(try await harness.reader(of: alice).messages(channelID: group.id, before: nil, limit: 1).messages.first)
                let resume = TimelineCursor(createdAt: StoreTime(microseconds: newest.createdAt.microseconds), messageID: newest.id.rawValue)
                try await alice.store.recordUnreadRange(channelID: group.id.rawValue, UnreadRange(below: before, resume: resume), at: now())
                let api = try await harness.reader(of: alice)
                let first = Seen(), second = Seen()
                var short = UnreadRangeScan(api: api, store: alice.store, now: now, maximumMessages: 20)
                let cut = try await short.scan(channelID: group.id, keeps: { _ in first.add(); return false }) { _ in }
                #expect(cut == .overBound)
                #expect(first.total == 20)
                short.maximumMessages = 1_000
                let rest = try await short.scan(channelID: group.id, keeps: { _ in second.add(); return false }) { _ in }
                #expect(rest == .readToEnd)
                // The 40 left (and the boundary message once more, read again at its own time).
                #expect(second.total <= 41, "read again from the top: \(second.total)")
                #expect(try await alice.store.unreadRange(channelID: group.id.rawValue) == nil)
            }
        }

        @Test("a gap too long to read renews the keys once: not again for a second channel, nor after a restart when nothing was encrypted since")
        func gapTooLongToReadRenewsOnce() async throws {
            let files = try Files()
            defer { try? FileManager.default.removeItem(at: files.directory) }
            try await MessagingHarness.with { harness in
                let bob = try await harness.register("bob")
                let firstStore = try KeyStore.open(at: files.url, key: files.key)
                let alice = try await harness.register("alice", store: firstStore)
                let one = try await alice.createGroup(name: "one", members: [bob.userID])
                let two = try await alice.createGroup(name: "two", members: [bob.userID])
                try await harness.accept(one, on: [bob])
                try await harness.accept(two, on: [bob])
                try await alice.send(text: "hello one", to: one.id)
                try await alice.send(text: "hello two", to: two.id)
                await alice.waitForOutbox()
                await alice.shutdown()
                try firstStore.close()
                let poster = try await harness.reader(of: bob)
                try await RollbackGapTests.flood(one.id, count: 60, as: poster)
                try await RollbackGapTests.flood(two.id, count: 60, as: poster)

                var renewals: [StoreTime?] = []
                try await StoreRollbackTests.withAlice(files, harness, configuration: RollbackGapTests.small) { alice in
                    try await alice.send(text: "after the flood, one", to: one.id)
                    await alice.waitForOutbox()
                    renewals.append(try await alice.store.keysRenewedAt())
                    try await alice.send(text: "after the flood, two", to: two.id)
                    await alice.waitForOutbox()
                    renewals.append(try await alice.store.keysRenewedAt())
                }
                #expect(renewals[0] != nil, "the first gap too long to read renews the keys")
                #expect(renewals[1] == renewals[0], "renewed since the store was opened: the second channel's gap needs no renewal")

                // A restart and another flood: Alice posted since the renewal, so it renews again.
                try await RollbackGapTests.flood(one.id, count: 60, as: poster)
                try await StoreRollbackTests.withAlice(files, harness, configuration: RollbackGapTests.small) { alice in
                    try await alice.prepareToSend(channelID: one.id)
                    renewals.append(try await alice.store.keysRenewedAt())
                }
                #expect(renewals[2] != renewals[1], "something was encrypted since the last renewal")

                // Another restart and flood: nothing encrypted since that renewal, no new one.
                try await RollbackGapTests.flood(one.id, count: 60, as: poster)
                try await StoreRollbackTests.withAlice(files, harness, configuration: RollbackGapTests.small) { alice in
                    try await alice.prepareToSend(channelID: one.id)
                    renewals.append(try await alice.store.keysRenewedAt())
                    #expect(try await alice.store.unreadRange(channelID: one.id.rawValue) == nil)
                }
                #expect(renewals[3] == renewals[2], "nothing of ours was encrypted since the last renewal")
            }
        }

        @Test("a device that has never encrypted anything renews nothing for a gap too long to read")
        func aDeviceThatNeverSentRenewsNothing() async throws {
            try await MessagingHarness.with { harness in
                let bob = try await harness.register("bob")
                let alice = try await harness.register("alice", configuration: RollbackGapTests.small)
                let group = try await bob.createGroup(name: "team", members: [alice.userID])
                try await harness.accept(group, on: [alice])
                try await RollbackGapTests.flood(group.id, count: 60, as: try await harness.reader(of: bob))
                try await alice.prepareToSend(channelID: group.id)
                #expect(try await alice.store.keysRenewedAt() == nil)
                #expect(try await alice.store.rollbackDetectedAt() == nil)
                #expect(try await alice.store.unreadRange(channelID: group.id.rawValue) == nil)
            }
        }
    }
}
