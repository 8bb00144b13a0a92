import E2EEDevServer
import E2EEKeyStore
import E2EEMessaging
import Foundation
import Testing

extension IntegrationTests.GuaranteeTests {
    @Test("1. nothing missed: messages sent while the socket was down come by the reconnect's catch-up, each once, in order")
    func nothingMissedAcrossASocketDrop() async throws {
        var quirks = DevServerQuirks.none
        quirks.lateSubscribeAfterConnect = true
        quirks.publishBeforeCommit = true
        try await MessagingHarness.with(.testing(quirks: quirks)) { harness in
            let alice = try await harness.register("alice")
            let bob = try await harness.register("bob")
            let dm = try await harness.acceptedDM(alice, bob)
            try await bob.sync()
            let monitor = try await Self.connect(bob, harness, watching: [dm.id])

            let before = (0..<4).map { "before \($0)" }
            try await Self.send(before, from: alice, to: dm.id)
            #expect(await monitor.waitForReadable([dm.id: 4], limit: .seconds(30)))

            await harness.server.faults.refuseUpgrades(status: 403)
            await harness.server.faults.dropOpenSockets(ofUser: bob.userID.rawValue)
            #expect(await monitor.connection.wait { if case .reconnecting = $0 { true } else { false } })
            let outage = (0..<5).map { "outage \($0)" }
            try await Self.send(outage, from: alice, to: dm.id)
            await harness.server.faults.refuseUpgrades(status: nil)
            #expect(await monitor.waitForConnection(.connected))
            #expect(await monitor.waitForReadable([dm.id: 9], limit: .seconds(30)))

            let after = (0..<3).map { "after \($0)" }
            try await Self.send(after, from: alice, to: dm.id)
            #expect(await monitor.waitForReadable([dm.id: 12], limit: .seconds(30)))
            let items = try await bob.timeline(channelID: dm.id, limit: 100)
            #expect(items.map(\.text) == before + outage + after)
            #expect(TimelineChecks.isOrdered(items))
            monitor.stop()
            await bob.shutdown()
        }
    }

    /// Found by the long soak: the catch-up stopped at the first page holding a message the
    /// store knew — here our own message, sent during the outage and newer than most of it —
    /// and never read the older part of the outage.
    @Test("1. nothing missed: an outage longer than a page, with our own message sent in it, is caught up entirely")
    func outageWithOwnSendsIsCaughtUpEntirely() async throws {
        try await MessagingHarness.with { harness in
            let alice = try await harness.register("alice")
            let bob = try await harness.register("bob")
            let carol = try await harness.register("carol")
            let group = try await alice.createGroup(name: "outage", members: [bob.userID, carol.userID])
            try await harness.accept(group, on: [bob, carol])
            try await Self.send(["before"], from: alice, to: group.id)
            try await bob.sync()
            let monitor = try await Self.connect(bob, harness, watching: [group.id])

            await harness.server.faults.refuseUpgrades(status: 403)
            await harness.server.faults.dropOpenSockets(ofUser: bob.userID.rawValue)
            #expect(await monitor.connection.wait { if case .reconnecting = $0 { true } else { false } })
            let outage = (0..<60).map { "outage \($0)" }
            for text in outage { _ = try await carol.send(text: text, to: group.id) }
            await carol.waitForOutbox()
            try await Self.send(["bob, during the outage"], from: bob, to: group.id)
            await harness.server.faults.refuseUpgrades(status: nil)

            #expect(await monitor.waitForReadable([group.id: 62], limit: .seconds(30)))
            let items = try await bob.timeline(channelID: group.id, limit: 1_000)
            #expect(Set(items.compactMap(\.text)) == Set(["before", "bob, during the outage"] + outage) && items.count == 62)
            #expect(TimelineChecks.isOrdered(items))
            monitor.stop()
            await bob.shutdown()
        }
    }

    @Test("1. nothing twice: a message on the socket (twice) and on REST pages is shown once, also after a restart")
    func nothingTwiceFromSocketPagesAndRestart() async throws {
        try await MessagingHarness.with { harness in
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("e2ee-twice-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: directory) }
            let url = directory.appendingPathComponent("bob.sqlite")
            let key = StoreKey.random()
            let store = try KeyStore.open(at: url, key: key)
            let alice = try await harness.register("alice")
            let bob = try await harness.register("bob", store: store)
            let group = try await alice.createGroup(name: "twice", members: [bob.userID])
            try await harness.accept(group, on: [bob])
            try await bob.sync()
            let monitor = try await Self.connect(bob, harness, watching: [group.id])

            await harness.server.faults.duplicateEvents(true)
            let sent = (0..<6).map { "once \($0)" }
            try await Self.send(sent, from: alice, to: group.id)
            #expect(await monitor.waitForReadable([group.id: 6], limit: .seconds(30)))
            try await bob.sync()  // the same messages again, from a REST page
            try await bob.sync()
            #expect(try await bob.timeline(channelID: group.id, limit: 100).map(\.text) == sent)
            monitor.stop()
            await bob.shutdown()
            try store.close()

            let reopened = try KeyStore.open(at: url, key: key)
            let restarted = try await Account.open(server: try await harness.client(restoring: reopened), store: reopened,
                                                   configuration: MessagingHarness.testConfiguration)
            try await restarted.sync()  // the dedupe set is the store: nothing comes in twice
            #expect(try await restarted.timeline(channelID: group.id, limit: 100).map(\.text) == sent)
            await restarted.shutdown()
            try reopened.close()
        }
    }
}
