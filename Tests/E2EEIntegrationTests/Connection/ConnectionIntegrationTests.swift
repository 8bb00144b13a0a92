import E2EETestSupport
import E2EEDevServer
import E2EEMessaging
import E2EETransport
import Testing

extension IntegrationTests {
    /// The connection supervisor against the development server over loopback, with the real
    /// HTTP and WebSocket clients; faults come from the server's FaultInjector.
    @Suite("Connection")
    struct ConnectionIntegrationTests {
        /// Records every state of `supervisor` from now on.
        private func recordStates(_ supervisor: ConnectionSupervisor) -> (Watched<[ConnectionState]>, Task<Void, Never>) {
            let states = Watched<[ConnectionState]>([])
            let stream = supervisor.states
            let task = Task { for await state in stream { states.update { $0.append(state) } } }
            return (states, task)
        }

        @Test("the server drops the socket: a new ticket, a new socket, a catch-up again")
        func reconnectAfterServerDrop() async throws {
            try await ConnectionHarness.with { harness in
                let (alice, tokens) = try await harness.registered("alice")
                let channel = try await alice.createChannel(name: "g")
                let probe = ConnectionProbe(api: alice, channels: [channel.id])
                let connector = harness.connector()
                let supervisor = await harness.supervisor(alice, connector: connector, delegate: probe)
                let (states, recorder) = recordStates(supervisor)
                await supervisor.start()
                #expect(await states.wait { $0.last == .connected })
                #expect(await probe.log.wait { $0.catchUps.contains(.connected) })

                await harness.server.faults.dropSockets(afterFrames: 1)
                let first = try await alice.sendMessage(channelID: channel.id, OutgoingMessage(content: "1", senderDeviceID: tokens.deviceID))
                #expect(await probe.log.wait { $0.socketMessages.contains(first.id.rawValue) })
                await harness.server.faults.dropSockets(afterFrames: nil)  // before the new socket sends a frame

                #expect(await probe.log.wait { $0.catchUps.filter { $0 == .connected }.count == 2 })
                #expect(await states.wait { $0.suffix(2) == [.reconnecting(attempt: 1), .connected] })
                let tickets = connector.tickets
                #expect(tickets.count == 2 && Set(tickets).count == 2)

                #expect(await harness.waitForSubscription(userID: tokens.userID.rawValue, channelID: channel.id.rawValue))
                let second = try await alice.sendMessage(channelID: channel.id, OutgoingMessage(content: "2", senderDeviceID: tokens.deviceID))
                #expect(await probe.log.wait { $0.socketMessages.contains(second.id.rawValue) })
                await supervisor.stop()
                recorder.cancel()
            }
        }

        @Test("a used ticket is refused at the handshake; every attempt fetched its own")
        func ticketReuseRefused() async throws {
            try await ConnectionHarness.with { harness in
                let (alice, _) = try await harness.registered("alice")
                let probe = ConnectionProbe(api: alice, channels: [])
                let connector = harness.connector()
                let supervisor = await harness.supervisor(alice, connector: connector, delegate: probe)
                await supervisor.start()
                #expect(await probe.log.wait { $0.catchUps.contains(.connected) })
                await supervisor.networkChanged()
                #expect(await probe.log.wait { $0.catchUps.filter { $0 == .connected }.count == 2 })
                let tickets = connector.tickets
                #expect(tickets.count == 2 && Set(tickets).count == 2)
                for ticket in tickets {
                    // The server's detail text is its own; the refusal is a 403.
                    do {
                        _ = try await connector.connectUnrecorded(ticket: ticket)
                        Issue.record("a used ticket was accepted")
                    } catch let error as ServerError {
                        guard case .forbidden = error else { Issue.record("expected forbidden, got \(error)"); continue }
                    }
                }
                await supervisor.stop()
            }
        }

        @Test("upgrades refused five times: polling; upgrades allowed: connected and polling stops")
        func pollingFallbackAndRecovery() async throws {
            try await ConnectionHarness.with { harness in
                let (alice, tokens) = try await harness.registered("alice")
                let channel = try await alice.createChannel(name: "g")
                let probe = ConnectionProbe(api: alice, channels: [channel.id])
                let connector = harness.connector()
                let supervisor = await harness.supervisor(alice, connector: connector, delegate: probe)
                let (states, recorder) = recordStates(supervisor)
                await harness.server.faults.refuseUpgrades(status: 403)
                await supervisor.start()
                #expect(await states.wait { $0.last == .polling })
                #expect(connector.tickets.count >= 5)
                #expect(Array(states.value.prefix(7)) == [.disconnected, .connecting, .reconnecting(attempt: 1), .reconnecting(attempt: 2),
                                                          .reconnecting(attempt: 3), .reconnecting(attempt: 4), .polling])

                // Polling finds what is sent meanwhile, over REST.
                let sent = try await alice.sendMessage(channelID: channel.id, OutgoingMessage(content: "while polling", senderDeviceID: tokens.deviceID))
                #expect(await probe.log.wait { $0.polls >= 2 && $0.restMessages.contains(sent.id.rawValue) })
                #expect(probe.log.value.catchUps.isEmpty)

                await harness.server.faults.refuseUpgrades(status: nil)
                #expect(await states.wait { $0.last == .connected })
                let pollsWhenConnected = probe.log.value.polls
                // The follow-up catch-up comes 400 ms after the open: more than two poll intervals.
                #expect(await probe.log.wait { $0.catchUps.contains(.connectedFollowUp) })
                #expect(probe.log.value.polls <= pollsWhenConnected + 1)  // at most one already queued
                #expect(states.value.last == .connected)
                await supervisor.stop()
                recorder.cancel()
            }
        }

        @Test("events keep flowing across a reconnect; what was sent in the outage comes by catch-up")
        func eventsAcrossReconnect() async throws {
            try await ConnectionHarness.with { harness in
                let (alice, tokens) = try await harness.registered("alice")
                let channel = try await alice.createChannel(name: "g")
                let probe = ConnectionProbe(api: alice, channels: [channel.id])
                let supervisor = await harness.supervisor(alice, connector: harness.connector(), delegate: probe)
                let (states, recorder) = recordStates(supervisor)
                await supervisor.start()
                #expect(await states.wait { $0.last == .connected })
                #expect(await harness.waitForSubscription(userID: tokens.userID.rawValue, channelID: channel.id.rawValue))
                let send: @Sendable (String) async throws -> String = { text in
                    try await alice.sendMessage(channelID: channel.id, OutgoingMessage(content: text, senderDeviceID: tokens.deviceID)).id.rawValue
                }

                var before: [String] = []
                for index in 0..<3 { before.append(try await send("before \(index)")) }
                let firstBatch = before
                #expect(await probe.log.wait { Set($0.socketMessages).isSuperset(of: firstBatch) })

                // Outage: the socket is dropped on its next frame and new handshakes are refused.
                await harness.server.faults.refuseUpgrades(status: 403)
                await harness.server.faults.dropSockets(afterFrames: 1)
                before.append(try await send("drops the socket"))
                #expect(await states.wait { $0.contains(.reconnecting(attempt: 1)) })
                var sentInOutage: [String] = []
                for index in 0..<3 { sentInOutage.append(try await send("outage \(index)")) }
                let outage = sentInOutage
                await harness.server.faults.dropSockets(afterFrames: nil)
                await harness.server.faults.refuseUpgrades(status: nil)

                #expect(await states.wait { $0.last == .connected })
                #expect(await probe.log.wait { $0.restMessages.isSuperset(of: outage) })
                #expect(await harness.waitForSubscription(userID: tokens.userID.rawValue, channelID: channel.id.rawValue))
                var sentAfter: [String] = []
                for index in 0..<3 { sentAfter.append(try await send("after \(index)")) }
                let after = sentAfter
                #expect(await probe.log.wait { Array($0.socketMessages.suffix(3)) == after })
                let everything = before + outage + after
                #expect(probe.allMessages.isSuperset(of: everything))
                await supervisor.stop()
                recorder.cancel()
            }
        }

        @Test("a channel created after connect gets an explicit subscribe, and its events arrive")
        func laterChannelIsSubscribed() async throws {
            try await ConnectionHarness.with { harness in
                let (alice, tokens) = try await harness.registered("alice")
                let probe = ConnectionProbe(api: alice, channels: [])
                let supervisor = await harness.supervisor(alice, connector: harness.connector(), delegate: probe)
                await supervisor.start()
                #expect(await probe.log.wait { $0.catchUps.contains(.connected) })

                let later = try await alice.createChannel(name: "later")
                #expect(!(await harness.server.subscriptions(ofUser: tokens.userID.rawValue).contains(later.id.rawValue)))
                probe.add(channelID: later.id)
                await supervisor.subscribe(channelID: later.id)
                #expect(await harness.waitForSubscription(userID: tokens.userID.rawValue, channelID: later.id.rawValue))
                #expect(await probe.log.wait { $0.catchUps.contains(.subscribed(channelID: later.id)) })
                let message = try await alice.sendMessage(channelID: later.id, OutgoingMessage(content: "hi", senderDeviceID: tokens.deviceID))
                #expect(await probe.log.wait { $0.socketMessages.contains(message.id.rawValue) })
                #expect(await probe.log.wait { $0.catchUps.contains(.subscribedFollowUp(channelID: later.id)) })
                await supervisor.stop()
            }
        }

        @Test("background closes the socket cleanly; foreground reconnects with a catch-up")
        func backgroundAndForeground() async throws {
            try await ConnectionHarness.with { harness in
                let (alice, tokens) = try await harness.registered("alice")
                let probe = ConnectionProbe(api: alice, channels: [])
                let supervisor = await harness.supervisor(alice, connector: harness.connector(), delegate: probe)
                await supervisor.start()
                #expect(await probe.log.wait { $0.catchUps.contains(.connected) })
                #expect(await waitForSocketCount(harness, userID: tokens.userID.rawValue, 1))
                await supervisor.enterBackground()
                #expect(probe.log.value.background == 1)
                #expect(supervisor.state == .disconnected)
                #expect(await waitForSocketCount(harness, userID: tokens.userID.rawValue, 0))
                await supervisor.enterForeground()
                #expect(await probe.log.wait { $0.catchUps.filter { $0 == .connected }.count == 2 })
                #expect(await waitForSocketCount(harness, userID: tokens.userID.rawValue, 1))
                await supervisor.stop()
            }
        }

        /// Waits until the server counts `count` sockets of `userID`.
        private func waitForSocketCount(_ harness: ConnectionHarness, userID: String, _ count: Int) async -> Bool {
            // The server offers no signal to await.
            await eventually(within: .seconds(20)) { await harness.server.socketCount(ofUser: userID) == count }
        }
    }
}
