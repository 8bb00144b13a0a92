import E2EEDevServer
import E2EEMessaging
import E2EETransport
import Testing

extension TransportTests {
    /// What the server sends that is not a well-formed event, and how it closes, end to end.
    @Suite("WebSocket server frames")
    struct WebSocketServerFrameTests {
        /// Alice with a channel and an open socket.
        private func connected(_ harness: TransportHarness, options: RealtimeConnectionOptions = .standard)
            async throws -> (client: HTTPChatServer, tokens: TokenResponse, channel: ServerChannel, connection: any RealtimeConnection, inbox: UpdateInbox) {
            let (alice, tokens) = try await harness.registered("alice")
            let channel = try await alice.createChannel(name: "g")
            let connector = WebSocketRealtimeConnector(webSocketURL: harness.server.webSocketURL, options: options)
            let connection = try await connector.connect(ticket: try await alice.webSocketTicket())
            return (alice, tokens, channel, connection, UpdateInbox(connection))
        }

        @Test func malformedFramesAreReportedAndTheStreamGoesOn() async throws {
            try await TransportHarness.with { harness in
                var options = RealtimeConnectionOptions.standard
                options.maxMessageBytes = 64 * 1024
                let (alice, tokens, channel, connection, inbox) = try await connected(harness, options: options)
                let huge = #"{"type":"message.new","message":""# + String(repeating: "x", count: 100_000) + #""}"#
                let frames: [(String, RealtimeUpdate)] = [
                    ("not json at all", .malformedFrame(reason: "not a JSON object", byteCount: 15)),
                    ("[1,2,3]", .malformedFrame(reason: "not a JSON object", byteCount: 7)),
                    (#"{"no":"type"}"#, .malformedFrame(reason: "no type", byteCount: 13)),
                    (#"{"type":"message.new","message":{"id":1}}"#, .malformedFrame(reason: "bad message.new payload", byteCount: 41)),
                    (#"{"type":"reaction.add","emoji":"+1"}"#, .event(.unknown(type: "reaction.add"))),
                    (#"{"error":"Invalid JSON"}"#, .event(.serverError("Invalid JSON"))),
                    (huge, .malformedFrame(reason: "message over 65536 bytes", byteCount: huge.utf8.count)),
                ]
                for (text, expected) in frames {
                    await harness.server.faults.sendRawFrame(text, toUser: tokens.userID.rawValue)
                    #expect(await inbox.next() == expected, "for \(text.prefix(40))")
                }
                let sent = try await alice.sendMessage(channelID: channel.id, OutgoingMessage(content: "still here"))
                #expect(await inbox.next() == .event(.messageNew(sent)), "a valid event after the bad frames still arrives")
                await connection.close()
                #expect(await inbox.next() == .closed(.closedByClient))
            }
        }

        @Test func aFrameOverTheFrameLimitEndsTheConnection() async throws {
            try await TransportHarness.with { harness in
                let options = RealtimeConnectionOptions(maxMessageBytes: 1024, maxFrameBytes: 64 * 1024)
                let (_, tokens, _, _, inbox) = try await connected(harness, options: options)
                await harness.server.faults.sendRawFrame(String(repeating: "z", count: 2048), toUser: tokens.userID.rawValue)
                #expect(await inbox.next() == .malformedFrame(reason: "message over 1024 bytes", byteCount: 2048))
                await harness.server.faults.sendRawFrame(String(repeating: "z", count: 100_000), toUser: tokens.userID.rawValue)
                let end = await inbox.next()
                #expect(end == .closed(.connectionLost("frame over 65536 bytes")), "got \(String(describing: end))")
            }
        }

        @Test(arguments: [(4001, "maintenance"), (1008, "policy")])
        func serverCloseSurfacesItsCodeAndReason(code: Int, reason: String) async throws {
            try await TransportHarness.with { harness in
                let (_, tokens, _, connection, inbox) = try await connected(harness)
                await harness.server.faults.closeSockets(ofUser: tokens.userID.rawValue, code: code, reason: reason)
                #expect(await inbox.next() == .closed(.closedByServer(code: code, reason: reason)))
                #expect(await inbox.next(timeout: 0.3) == nil, "closed is the last update")
                await #expect(throws: ServerError.self) { try await connection.subscribe(channelID: "00000000-0000-0000-0000-000000000000") }
            }
        }

        @Test func serverCloseWithoutReason() async throws {
            try await TransportHarness.with { harness in
                let (_, tokens, _, _, inbox) = try await connected(harness)
                await harness.server.faults.closeSockets(ofUser: tokens.userID.rawValue, code: 1001, reason: nil)
                #expect(await inbox.next() == .closed(.closedByServer(code: 1001, reason: nil)))
            }
        }
    }
}
