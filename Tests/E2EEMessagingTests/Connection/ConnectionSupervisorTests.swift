@testable import E2EEMessaging
import Testing

/// The supervisor against fakes of the server and the socket, on a manual clock: no test waits
/// real seconds, and every wait is for a signal (a state, a socket, a call, a pending timer).
@Suite("Connection supervisor")
struct ConnectionSupervisorTests {
    private func typing(_ index: Int) -> RealtimeEvent {
        .typing(userID: UserID("user-\(index)"), channelID: "channel", started: index.isMultiple(of: 2))
    }

    @Test("open: channels subscribed, catch-up first, events held until it returns, follow-up later")
    func openingSequence() async throws {
        let rig = await SupervisorRig(channels: ["a", "b"])
        await rig.supervisor.subscribe(channelID: "c")
        rig.delegate.catchUpGate.close()
        await rig.supervisor.start()
        guard let socket = await rig.socket(1) else { return }
        await rig.waitFor(.connected)
        socket.emit(.event(typing(1)))
        socket.emit(.event(typing(2)))
        await rig.waitForCalls { $0 == [.catchUp(.connected)] }
        #expect(socket.subscribed.value == ["a", "b", "c"])
        #expect(rig.delegate.events.isEmpty)  // the delegate queue is blocked behind the catch-up
        rig.delegate.catchUpGate.open()
        await rig.waitForCalls { $0.count == 3 }
        #expect(rig.delegate.calls.value == [.catchUp(.connected), .event(typing(1)), .event(typing(2))])
        await rig.fire(SupervisorRig.policy.followUpCatchUp)
        await rig.waitForCalls { $0.last == .catchUp(.connectedFollowUp) }
        #expect(socket.ticket == "ticket-1")
        await rig.finish()
    }

    @Test("new messages that queue up behind a catch-up reach the delegate in one call; another event between them keeps its place")
    func queuedMessagesInOneCall() async throws {
        let rig = await SupervisorRig(channels: ["a"])
        rig.delegate.catchUpGate.close()
        await rig.supervisor.start()
        guard let socket = await rig.socket(1) else { return }
        await rig.waitFor(.connected)
        await rig.waitForCalls { $0 == [.catchUp(.connected)] }
        let messages = (1...7).map { Self.message("m\($0)") }
        for message in messages.prefix(5) { socket.emit(.event(message)) }
        socket.emit(.event(typing(1)))
        for message in messages.suffix(2) { socket.emit(.event(message)) }
        await rig.waitForQueued(8)
        rig.delegate.catchUpGate.open()
        await rig.waitForCalls { $0.count == 9 }
        #expect(rig.delegate.events == Array(messages.prefix(5)) + [typing(1)] + Array(messages.suffix(2)), "the socket's order")
        #expect(rig.delegate.batches.value == [5, 2], "the five queued messages in one call, then the two after the typing event")
        // A message arriving while the delegate is idle comes alone.
        socket.emit(.event(Self.message("m8")))
        await rig.waitForCalls { $0.count == 10 }
        #expect(rig.delegate.batches.value == [5, 2, 1])
        await rig.finish()
    }

    private static func message(_ id: String) -> RealtimeEvent {
        .messageNew(ServerMessage(id: MessageID(id), channelID: "a", senderID: "u", senderDeviceID: "d", content: "x", contentType: "text",
                                  protocolVersion: 1, replyToID: nil, editedAt: nil, createdAt: ServerTimestamp(microseconds: 1)))
    }

    @Test("a delegate too far behind: past the queue limit the socket is closed, what was queued still arrives, the reconnect catches up")
    func queueLimit() async throws {
        var policy = SupervisorRig.policy
        policy.maxQueuedEvents = 3
        let rig = await SupervisorRig(channels: ["a"], policy: policy)
        rig.delegate.catchUpGate.close()
        await rig.supervisor.start()
        guard let first = await rig.socket(1) else { return }
        await rig.waitFor(.connected)
        await rig.waitForCalls { $0 == [.catchUp(.connected)] }
        // The delegate is held in its catch-up: three frames queue, the fourth closes the socket.
        for number in 1...6 { first.emit(.event(typing(number))) }
        _ = await first.closeReason.wait { $0 != nil }
        #expect(first.closeReason.value == .closedByClient)
        rig.delegate.catchUpGate.open()
        guard await rig.socket(2) != nil else { return }
        await rig.waitForCalls { $0.filter { $0 == .catchUp(.connected) }.count == 2 }
        #expect(rig.delegate.events == [typing(1), typing(2), typing(3)])
        await rig.finish()
    }

    @Test("a lost socket: reconnect at once with a new ticket, subscribe again, catch up again")
    func reconnectAfterLoss() async throws {
        let rig = await SupervisorRig(channels: ["a"])
        await rig.supervisor.start()
        guard let first = await rig.socket(1) else { return }
        await rig.supervisor.subscribe(channelID: "late")
        _ = await first.subscribed.wait { $0.contains("late") }
        first.end(.connectionLost("missed pongs"))
        guard let second = await rig.socket(2) else { return }
        await rig.waitFor(.connected)
        await rig.waitForCalls { $0.filter { $0 == .catchUp(.connected) }.count == 2 }
        #expect(second.ticket == "ticket-2")
        #expect(rig.connector.tickets.value == ["ticket-1", "ticket-2"])
        #expect(second.subscribed.value == ["a", "late"])
        #expect(rig.states.value.contains(.reconnecting(attempt: 1)))
        await rig.finish()
    }

    @Test("a server that does not answer: health checks every 0.5 s between attempts; the first that answers starts an attempt at once, long before the backoff")
    func healthCheckBringsTheAttemptForward() async throws {
        var policy = SupervisorRig.policy
        policy.backoffBase = .seconds(10)
        let rig = await SupervisorRig(policy: policy)
        rig.server.failNext(2, with: .transport("connection refused"))
        rig.server.answerHealth(with: .transport("connection refused"))
        await rig.supervisor.start()
        await rig.waitFor(.reconnecting(attempt: 2))
        await rig.fire(.milliseconds(500))  // check 1: still down
        await rig.server.healthChecks.wait { $0 == 1 }
        rig.server.answerHealth(with: nil)  // the server is back
        await rig.fire(.milliseconds(500))  // check 2: up, attempt 3 at once (the backoff said 10 s)
        guard let socket = await rig.socket(1) else { return }
        await rig.waitFor(.connected)
        #expect(socket.ticket == "ticket-1")
        #expect(rig.server.requests.value == 3)
        #expect(rig.server.healthChecks.value == 2)
        await rig.finish()
    }

    @Test("a refused handshake is a failed attempt; the next one fetches a new ticket")
    func refusedHandshake() async throws {
        let rig = await SupervisorRig()
        rig.connector.failNext(1, with: .forbidden(detail: "WebSocket handshake refused"))
        await rig.supervisor.start()
        guard let socket = await rig.socket(1) else { return }
        await rig.waitFor(.connected)
        #expect(rig.connector.tickets.value == ["ticket-1", "ticket-2"])
        #expect(socket.ticket == "ticket-2")
        #expect(rig.states.value == [.disconnected, .connecting, .reconnecting(attempt: 1), .connected])
        await rig.finish()
    }

    @Test("five failures: backoff 0, 1, 2, 4 s, then polling while probing on the schedule; an open probe stops polling")
    func pollingFallbackAndRecovery() async throws {
        let rig = await SupervisorRig()
        rig.connector.failNext(7, with: .forbidden(detail: "WebSocket handshake refused"))
        await rig.supervisor.start()
        await rig.fire(.seconds(1))
        await rig.fire(.seconds(2))
        await rig.fire(.seconds(4))
        await rig.waitFor(.polling)
        await rig.waitForCalls { $0 == [.poll] }
        #expect(rig.states.value == [.disconnected, .connecting, .reconnecting(attempt: 1), .reconnecting(attempt: 2),
                                     .reconnecting(attempt: 3), .reconnecting(attempt: 4), .polling])

        await rig.fire(.seconds(8))  // probe 1 fails (the sixth refusal); the backoff goes on
        await rig.connector.tickets.wait { $0.count == 6 }
        await rig.fire(.seconds(16))  // probe 2 fails (the seventh); the next probe at the 30 s cap
        await rig.connector.tickets.wait { $0.count == 7 }
        await rig.clock.pending.wait { $0.contains(.seconds(30)) && $0.contains(.seconds(45)) }
        rig.clock.advance(by: .seconds(21))  // 45 s since polling began: the poll timer fires
        await rig.waitForCalls { $0 == [.poll, .poll] }
        #expect(rig.state == .polling)

        rig.clock.advance(by: .seconds(9))  // 30 s since probe 2: probe 3 opens
        guard await rig.socket(1) != nil else { return }
        await rig.waitFor(.connected)
        #expect(await rig.clock.pending.wait { !$0.contains(.seconds(45)) && !$0.contains(.seconds(30)) })
        #expect(rig.delegate.count(.poll) == 2)
        await rig.finish()
    }

    @Test("a handshake that never answers fails at the deadline; the socket it opens late is closed")
    func hangingHandshake() async throws {
        let rig = await SupervisorRig()
        let gate = Gate(open: false)
        rig.connector.hangNext(until: gate)
        await rig.supervisor.start()
        await rig.fire(SupervisorRig.policy.attemptTimeout)
        guard let socket = await rig.socket(1) else { return }
        await rig.waitFor(.connected)
        #expect(socket.ticket == "ticket-2")
        #expect(rig.states.value == [.disconnected, .connecting, .reconnecting(attempt: 1), .connected])
        gate.open()
        guard let late = await rig.socket(2) else { return }
        #expect(late.ticket == "ticket-1")
        #expect(await late.closeReason.wait { $0 == .closedByClient })
        #expect(rig.state == .connected)
        #expect(socket.closeReason.value == nil)
        await rig.finish()
    }

    @Test("429 on the ticket: waits Retry-After, then longer, then connects")
    func rateLimitedTicket() async throws {
        let rig = await SupervisorRig()
        rig.server.failNext(2, with: .rateLimited(retryAfter: 10))
        await rig.supervisor.start()
        await rig.waitFor(.reconnecting(attempt: 1))
        await rig.fire(.seconds(10))
        await rig.waitFor(.reconnecting(attempt: 2))
        await rig.fire(.seconds(20))
        guard await rig.socket(1) != nil else { return }
        await rig.waitFor(.connected)
        #expect(rig.server.requests.value == 3)
        #expect(rig.delegate.count(.poll) == 0)
        await rig.finish()
    }

    @Test("503 on the ticket: polling at once, the socket probed at the capped interval")
    func unavailable() async throws {
        let rig = await SupervisorRig()
        rig.server.failNext(1, with: .server(status: 503, body: "Service Unavailable"))
        await rig.supervisor.start()
        await rig.waitFor(.polling)
        await rig.waitForCalls { $0 == [.poll] }
        await rig.fire(.seconds(30))
        await rig.waitFor(.connected)
        #expect(rig.states.value == [.disconnected, .connecting, .polling, .connected])
        await rig.finish()
    }

    @Test("session ended on the ticket: failed, delegate told, no more attempts")
    func sessionEndedOnTicket() async throws {
        let rig = await SupervisorRig()
        rig.server.failNext(1, with: .sessionEnded)
        await rig.supervisor.start()
        await rig.waitFor(.failed(reason: "session ended"))
        await rig.waitForCalls { $0 == [.sessionEnded] }
        #expect(await rig.clock.pending.wait { $0.isEmpty })
        await rig.supervisor.networkChanged()
        await rig.supervisor.enterForeground()
        #expect(rig.server.requests.value == 1)
        #expect(rig.connector.opened.value.isEmpty)
        await rig.finish()
    }

    @Test("session ended during a catch-up: the socket is closed and the supervisor fails")
    func sessionEndedDuringCatchUp() async throws {
        let rig = await SupervisorRig()
        rig.delegate.failCatchUps(with: .sessionEnded)
        await rig.supervisor.start()
        guard let socket = await rig.socket(1) else { return }
        await rig.waitFor(.failed(reason: "session ended"))
        await rig.waitForCalls { $0 == [.catchUp(.connected), .sessionEnded] }
        #expect(await socket.closeReason.wait { $0 == .closedByClient })
        await rig.finish()
    }

    @Test("a catch-up that fails for another reason does not stop the connection")
    func otherCatchUpErrorsAreTheDelegates() async throws {
        let rig = await SupervisorRig()
        rig.delegate.failCatchUps(with: .transport("timeout"))
        await rig.supervisor.start()
        guard let socket = await rig.socket(1) else { return }
        await rig.waitForCalls { $0 == [.catchUp(.connected)] }
        socket.emit(.event(typing(1)))
        await rig.waitForCalls { $0.last == .event(typing(1)) }
        #expect(rig.state == .connected)
        await rig.finish()
    }

    @Test("events reach the delegate in the order they arrived")
    func eventOrder() async throws {
        let rig = await SupervisorRig()
        await rig.supervisor.start()
        guard let socket = await rig.socket(1) else { return }
        let sent = (0..<500).map(typing)
        for event in sent { socket.emit(.event(event)) }
        await rig.waitForCalls { $0.count == 501 }
        #expect(rig.delegate.events == sent)
        await rig.finish()
    }

    @Test("malformed frames are reported and the stream goes on")
    func malformedFrames() async throws {
        let rig = await SupervisorRig()
        await rig.supervisor.start()
        guard let socket = await rig.socket(1) else { return }
        socket.emit(.event(typing(1)))
        socket.emit(.malformedFrame(reason: "not JSON", byteCount: 12))
        socket.emit(.malformedFrame(reason: "binary frame", byteCount: 3))
        socket.emit(.event(.serverError("Invalid JSON")))
        socket.emit(.event(typing(2)))
        await rig.waitForCalls { $0.count == 6 }
        #expect(rig.delegate.calls.value == [
            .catchUp(.connected), .event(typing(1)),
            .inputRefused("malformed frame (12 bytes): not JSON"), .inputRefused("malformed frame (3 bytes): binary frame"),
            .event(.serverError("Invalid JSON")), .event(typing(2)),
        ])
        #expect(rig.state == .connected)
        #expect(socket.closeReason.value == nil)
        await rig.finish()
    }
}
