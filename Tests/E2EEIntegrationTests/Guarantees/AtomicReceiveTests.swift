import E2EEDevServer
import E2EEKeyStore
import E2EEMessaging
import Foundation
import Testing

extension IntegrationTests.GuaranteeTests {
    @Test("4. atomic: a sync stopped mid-way leaves each message decrypted or still decryptable; the reopened store finishes the rest, once each")
    func stoppedSyncLeavesNoHalfState() async throws {
        try await MessagingHarness.with { harness in
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("e2ee-atomic-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: directory) }
            let url = directory.appendingPathComponent("bob.sqlite")
            let key = StoreKey.random()
            let store = try KeyStore.open(at: url, key: key)
            let alice = try await harness.register("alice")
            let alice2 = try await harness.login("alice", deviceName: "alice-2")
            let carol = try await harness.register("carol")
            let bob = try await harness.register("bob", store: store)
            let group = try await alice.createGroup(name: "atomic", members: [bob.userID, carol.userID])
            let dm = try await harness.acceptedDM(alice, bob)
            try await harness.trust([alice, alice2])
            try await harness.accept(group, on: [alice2, bob, carol])
            var sent: [ChannelID: [String]] = [group.id: [], dm.id: []]
            for round in 0..<15 {
                for (account, name) in [(alice, "alice"), (alice2, "alice-2"), (carol, "carol")] {
                    let text = "\(name) \(round)"
                    _ = try await account.send(text: text, to: group.id)
                    sent[group.id, default: []].append(text)
                }
                _ = try await alice.send(text: "dm \(round)", to: dm.id)
                sent[dm.id, default: []].append("dm \(round)")
            }
            for account in [alice, alice2, carol] { await account.waitForOutbox() }

            // The sync is stopped as soon as its first messages are stored, the account shut down.
            let events = bob.events()
            let sync = Task { try await bob.sync() }
            _ = await firstEvent(in: events, within: 30) { if case .timeline = $0 { true } else { false } }
            sync.cancel()
            _ = await sync.result
            await bob.shutdown()
            try store.close()

            let reopened = try KeyStore.open(at: url, key: key)
            let restarted = try await Account.open(server: try await harness.client(restoring: reopened), store: reopened,
                                                   configuration: MessagingHarness.testConfiguration)
            var readableAtCut = 0
            for channelID in [group.id, dm.id] {
                let items = try await restarted.timeline(channelID: channelID, limit: 1_000)
                #expect(items.allSatisfy { $0.state == .decrypted || $0.state == .pending }, "no half state: \(items.map(\.state))")
                readableAtCut += items.filter { $0.state == .decrypted }.count
            }
            #expect(readableAtCut < 60, "the sync was stopped before it had everything")
            try await restarted.sync()
            let reader = try await harness.reader(of: restarted)
            for channelID in [group.id, dm.id] {
                let items = try await restarted.timeline(channelID: channelID, limit: 1_000)
                #expect(items.allSatisfy { $0.state == .decrypted })
                #expect(items.compactMap(\.text).sorted() == (sent[channelID] ?? []).sorted())
                #expect(items.map(\.messageID) == (try await TimelineChecks.serverTimeline(channelID, reader: reader, shownBy: restarted)).map(\.id))
            }
            await restarted.shutdown()
            try reopened.close()
        }
    }
}
