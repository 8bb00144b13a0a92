import E2EEDevServer
import E2EEMessaging
import E2EETransport
import Testing

extension TransportTests {
    @Suite("Paging with tied timestamps")
    struct PagingTests {
        private func tied(runLength: Int) -> DevServerConfiguration {
            var quirks = DevServerQuirks.none
            quirks.tiedTimestamps = true
            quirks.tieRunLength = runLength
            return .testing(quirks: quirks, clock: .manual())
        }

        private func history(_ client: HTTPChatServer, _ channel: String, pageSize: Int) async throws -> [ServerMessage] {
            var pager = MessageHistoryPager(server: client, channelID: ChannelID(channel), pageSize: pageSize)
            var all: [ServerMessage] = []
            for _ in 0..<100 {
                let page = try await pager.nextPage()
                if page.isEmpty { break }
                #expect(page.map(\.id) == page.sorted(by: ServerMessage.timelineOrder).map(\.id))
                all = page + all
            }
            return all
        }

        @Test(arguments: [1, 2, 3, 4, 7])
        func pagerNeverSkipsNorRepeatsTiedRows(pageSize: Int) async throws {
            try await TransportHarness.with(tied(runLength: 3)) { harness in
                let (alice, _) = try await harness.registered("alice")
                let channel = try await alice.createChannel(name: "g")
                var sent: [ServerMessage] = []
                for index in 0..<11 {
                    sent.append(try await alice.sendMessage(channelID: channel.id, OutgoingMessage(content: "m\(index)")))
                    if index % 3 == 2 { harness.server.clock.advance(by: .seconds(1)) }
                }
                #expect(Set(sent.map(\.createdAt)).count < sent.count)
                let all = try await history(alice, channel.id.rawValue, pageSize: pageSize)
                #expect(all.count == sent.count)
                #expect(Set(all.map(\.id)) == Set(sent.map(\.id)))
                #expect(all.map(\.createdAt) == all.map(\.createdAt).sorted())
            }
        }

        @Test func rawBeforeSkipsTiesWhichIsWhyThePagerOverlaps() async throws {
            try await TransportHarness.with(tied(runLength: 3)) { harness in
                let (alice, _) = try await harness.registered("alice")
                let channel = try await alice.createChannel(name: "g")
                for index in 0..<3 { _ = try await alice.sendMessage(channelID: channel.id, OutgoingMessage(content: "m\(index)")) }
                let newest = try await alice.messages(channelID: channel.id, before: nil, limit: 1)
                let oldest = try #require(newest.messages.first)
                let strict = try await alice.messages(channelID: channel.id, before: oldest.createdAt, limit: 10)
                #expect(strict.messages.isEmpty)
                #expect(try await history(alice, channel.id.rawValue, pageSize: 1).count == 3)
            }
        }

        @Test func beforeWithAFractionIsURLEncoded() async throws {
            try await TransportHarness.with { harness in
                let (alice, _) = try await harness.registered("alice")
                let channel = try await alice.createChannel(name: "g")
                let first = try await alice.sendMessage(channelID: channel.id, OutgoingMessage(content: "a"))
                let second = try await alice.sendMessage(channelID: channel.id, OutgoingMessage(content: "b"))
                let page = try await alice.messages(channelID: channel.id, before: second.createdAt, limit: 10)
                #expect(page.messages.map(\.id) == [first.id])
            }
        }
    }
}
