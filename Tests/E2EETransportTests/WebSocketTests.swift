import E2EEDevServer
import E2EEMessaging
import E2EETransport
import Testing

/// Collects a connection's updates so a test can wait for the next one with a time limit.
actor UpdateInbox {
    private var pending: [RealtimeUpdate] = []

    init(_ connection: any RealtimeConnection) {
        let updates = connection.updates
        Task { await self.consume(updates) }
    }

    private func consume(_ updates: AsyncStream<RealtimeUpdate>) async {
        for await update in updates { pending.append(update) }
    }

    private func take() -> RealtimeUpdate? { pending.isEmpty ? nil : pending.removeFirst() }

    /// The next update, or nil when none came within `timeout` seconds.
    func next(timeout: Double = 5) async -> RealtimeUpdate? {
        let deadline = ContinuousClock.now + .milliseconds(Int(timeout * 1000))
        while ContinuousClock.now < deadline {
            if let update = take() { return update }
            try? await Task.sleep(nanoseconds: 10_000_000)
        }
        return take()
    }
}

extension TransportTests {
    @Suite("WebSocket")
    struct WebSocketTests {
        private func connector(_ harness: TransportHarness) -> WebSocketRealtimeConnector {
            WebSocketRealtimeConnector(webSocketURL: harness.server.webSocketURL)
        }

        @Test func eventsAreDecodedAndCloseIsClean() async throws {
            try await TransportHarness.with { harness in
                let (alice, tokens) = try await harness.registered("alice")
                let channel = try await alice.createChannel(name: "g")
                let connection = try await connector(harness).connect(ticket: try await alice.webSocketTicket())
                let reader = UpdateInbox(connection)
                let sent = try await alice.sendMessage(channelID: channel.id, OutgoingMessage(content: "hello", senderDeviceID: tokens.deviceID))
                #expect(await reader.next() == .event(.messageNew(sent)))
                try await alice.deleteMessage(id: sent.id)
                #expect(await reader.next() == .event(.messageDelete(messageID: sent.id, channelID: channel.id)))
                await connection.close()
                #expect(await reader.next() == .closed(.closedByClient))
                await #expect(throws: ServerError.self) { try await connection.subscribe(channelID: channel.id) }
            }
        }

        @Test func reusedTicketIsRefusedAtTheHandshake() async throws {
            try await TransportHarness.with { harness in
                let (alice, _) = try await harness.registered("alice")
                let ticket = try await alice.webSocketTicket()
                let connection = try await connector(harness).connect(ticket: ticket)
                await #expect(throws: ServerError.forbidden(detail: nil)) {
                    _ = try await connector(harness).connect(ticket: ticket)
                }
                await #expect(throws: ServerError.forbidden(detail: nil)) {
                    _ = try await connector(harness).connect(ticket: "not-a-ticket")
                }
                await connection.close()
            }
        }

        @Test func laterChannelsNeedSubscribeAndTypingIsRelayed() async throws {
            try await TransportHarness.with(.testing(quirks: { var q = DevServerQuirks.none; q.noAutoSubscribeToLaterChannels = true; return q }())) { harness in
                let (alice, aliceTokens) = try await harness.registered("alice")
                let connection = try await connector(harness).connect(ticket: try await alice.webSocketTicket())
                let reader = UpdateInbox(connection)
                let channel = try await alice.createChannel(name: "later")
                _ = try await alice.sendMessage(channelID: channel.id, OutgoingMessage(content: "missed"))
                try await connection.subscribe(channelID: channel.id)
                for _ in 0..<200 where !(await harness.server.subscriptions(ofUser: aliceTokens.userID.rawValue).contains(channel.id.rawValue)) {
                    try await Task.sleep(nanoseconds: 10_000_000)
                }
                let seen = try await alice.sendMessage(channelID: channel.id, OutgoingMessage(content: "seen"))
                #expect(await reader.next() == .event(.messageNew(seen)))
                try await connection.sendTyping(channelID: channel.id, started: true)
                #expect(await reader.next() == .event(.typing(userID: aliceTokens.userID, channelID: channel.id, started: true)))
                await connection.close()
            }
        }

        @Test func socketKilledMidStreamIsReported() async throws {
            try await TransportHarness.with { harness in
                let (alice, _) = try await harness.registered("alice")
                let channel = try await alice.createChannel(name: "g")
                let connection = try await connector(harness).connect(ticket: try await alice.webSocketTicket())
                let reader = UpdateInbox(connection)
                await harness.server.faults.dropSockets(afterFrames: 1)
                let first = try await alice.sendMessage(channelID: channel.id, OutgoingMessage(content: "1"))
                _ = try await alice.sendMessage(channelID: channel.id, OutgoingMessage(content: "2"))
                #expect(await reader.next() == .event(.messageNew(first)))
                let end = await reader.next()
                guard case .closed(.connectionLost) = end else {
                    Issue.record("expected a lost connection, got \(String(describing: end))")
                    return
                }
                #expect(await reader.next(timeout: 0.5) == nil)
            }
        }
    }
}
