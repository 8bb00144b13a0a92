import E2EECrypto
import E2EEDevServer
@_spi(Benchmarks) import E2EEMessaging
import Testing

extension IntegrationTests.GuaranteeTests {
    @Test("3. a message whose sender key has not arrived waits pending, per sender device, and is decrypted when its key comes")
    func pendingUntilTheKeyArrives() async throws {
        try await MessagingHarness.with { harness in
            let alice = try await harness.register("alice")
            let alice2 = try await harness.login("alice", deviceName: "alice-2")
            let bob = try await harness.register("bob")
            let group = try await alice.createGroup(name: "late keys", members: [bob.userID])
            try await harness.accept(group, on: [alice2, bob])
            try await Self.send(["from alice-1"], from: alice, to: group.id)
            try await Self.send(["from alice-2"], from: alice2, to: group.id)
            let onServer = try await harness.serverMessages(group.id, as: try await harness.reader(of: bob))
            // Each device's last group message (alice-2 announced its acceptance first, §5.15).
            let groupPosts = onServer.filter { $0.contentType == EnvelopeKind.group.contentType }
            let messages = [alice, alice2].compactMap { account in groupPosts.last { $0.senderDeviceID == account.deviceID } }
            let keys = onServer.filter { $0.contentType == EnvelopeKind.senderKeyDistribution.contentType }
            try #require(messages.count == 2 && keys.count == 2)
            func from(_ account: Account, _ list: [ServerMessage]) throws -> ServerMessage {
                try #require(list.first { $0.senderDeviceID == account.deviceID })
            }

            // Both messages before any key: both wait, each for its own device's key.
            let events = bob.events()
            let early = try await bob.ingest(messages, channelID: group.id)
            #expect(early.allSatisfy { if case .pending(let key) = $0.result { key.hasPrefix("sender_key:") } else { false } })
            #expect(try await bob.timeline(channelID: group.id).map(\.state) == [.pending, .pending])

            // alice-2's key alone: only alice-2's message becomes readable.
            let second = try from(alice2, messages)
            _ = try await bob.ingest([try from(alice2, keys)], channelID: group.id)
            let decrypted = await firstEvent(in: events, within: 10) {
                $0.timelineChanges.contains(TimelineChange(channelID: group.id, messageID: second.id, kind: .decrypted))
            }
            #expect(decrypted != nil)
            #expect(try await bob.timeline(channelID: group.id).map(\.text).contains("from alice-2"))
            #expect(try await bob.timeline(channelID: group.id).filter { $0.state == .pending }.map(\.messageID) == [try from(alice, messages).id])

            // The rest comes with a catch-up: alice-1's key, then its waiting message.
            try await bob.sync()
            let items = try await bob.timeline(channelID: group.id)
            #expect(items.allSatisfy { $0.state == .decrypted })
            #expect(Set(items.compactMap(\.text)) == ["from alice-1", "from alice-2"])
        }
    }
}
