import E2EEMessaging
import Testing

/// The supervisor's lifecycle hooks and passthroughs against fakes, on a manual clock.
@Suite("Connection supervisor lifecycle")
struct ConnectionSupervisorLifecycleTests {
    private func typing(_ index: Int) -> RealtimeEvent {
        .typing(userID: UserID("user-\(index)"), channelID: "channel", started: index.isMultiple(of: 2))
    }

    @Test("background: clean close, last events handed over, then the delegate persists; foreground reconnects")
    func backgroundAndForeground() async throws {
        let rig = await SupervisorRig()
        await rig.supervisor.start()
        guard let first = await rig.socket(1) else { return }
        await rig.waitForCalls { $0 == [.catchUp(.connected)] }
        first.emit(.event(typing(1)))
        await rig.supervisor.enterBackground()
        #expect(rig.delegate.calls.value == [.catchUp(.connected), .event(typing(1)), .background])
        #expect(first.closeReason.value == .closedByClient)
        #expect(rig.state == .disconnected)
        #expect(await rig.clock.pending.wait { $0.isEmpty })

        await rig.supervisor.enterForeground()
        guard let second = await rig.socket(2) else { return }
        await rig.waitFor(.connected)
        await rig.waitForCalls { $0.last == .catchUp(.connected) }
        #expect(second.ticket == "ticket-2")
        await rig.finish()
    }

    @Test("network change: socket closed, 2 s settle (shrunk here), then a new socket and a catch-up")
    func networkChange() async throws {
        let rig = await SupervisorRig()
        await rig.supervisor.start()
        guard let first = await rig.socket(1) else { return }
        await rig.waitForCalls { $0 == [.catchUp(.connected)] }
        await rig.supervisor.networkChanged()
        #expect(await first.closeReason.wait { $0 == .closedByClient })
        #expect(rig.state == .connecting)
        await rig.clock.waitForSleep(SupervisorRig.policy.networkSettle)
        #expect(rig.connector.opened.value.count == 1)  // nothing happens before the settle
        rig.clock.advance(by: SupervisorRig.policy.networkSettle)
        guard let second = await rig.socket(2) else { return }
        await rig.waitFor(.connected)
        await rig.waitForCalls { $0 == [.catchUp(.connected), .catchUp(.connected)] }
        #expect(second.ticket == "ticket-2")
        await rig.finish()
    }

    @Test("runtime subscribe: sent now, caught up now and again later, re-sent after a reconnect")
    func runtimeSubscribe() async throws {
        let rig = await SupervisorRig()
        await rig.supervisor.start()
        guard let first = await rig.socket(1) else { return }
        await rig.waitForCalls { $0 == [.catchUp(.connected)] }
        await rig.supervisor.subscribe(channelID: "new-channel")
        #expect(await first.subscribed.wait { $0 == ["new-channel"] })
        await rig.waitForCalls { $0.last == .catchUp(.subscribed(channelID: "new-channel")) }
        await rig.fire(SupervisorRig.policy.followUpCatchUp)
        await rig.waitForCalls { $0.contains(.catchUp(.subscribedFollowUp(channelID: "new-channel"))) }
        first.end(.closedByServer(code: 1001, reason: "going away"))
        guard let second = await rig.socket(2) else { return }
        #expect(await second.subscribed.wait { $0 == ["new-channel"] })
        await rig.finish()
    }

    @Test("typing goes to the open socket; without one it is a transport error")
    func typingPassthrough() async throws {
        let rig = await SupervisorRig()
        await #expect(throws: ServerError.transport("not connected")) {
            try await rig.supervisor.sendTyping(channelID: "c", started: true)
        }
        await rig.supervisor.start()
        guard let socket = await rig.socket(1) else { return }
        await rig.waitFor(.connected)
        try await rig.supervisor.sendTyping(channelID: "c", started: true)
        try await rig.supervisor.sendTyping(channelID: "c", started: false)
        #expect(socket.typing.value == ["start c", "stop c"])
        await rig.finish()
    }

    @Test("stop: clean close, every timer cancelled, disconnected")
    func stop() async throws {
        let rig = await SupervisorRig()
        await rig.supervisor.start()
        guard let socket = await rig.socket(1) else { return }
        await rig.clock.waitForSleep(SupervisorRig.policy.followUpCatchUp)
        await rig.supervisor.stop()
        #expect(socket.closeReason.value == .closedByClient)
        #expect(rig.state == .disconnected)
        #expect(await rig.clock.pending.wait { $0.isEmpty })
        #expect(rig.connector.opened.value.count == 1)
        await rig.finish()
    }

    @Test("every state subscriber gets every change, starting with the current state")
    func stateSubscribers() async throws {
        let rig = await SupervisorRig()
        let first = rig.supervisor.states
        let second = rig.supervisor.states
        rig.connector.failNext(1, with: .transport("refused"))
        await rig.supervisor.start()
        await rig.waitFor(.connected)
        let expected: [ConnectionState] = [.disconnected, .connecting, .reconnecting(attempt: 1), .connected]
        var firstSeen: [ConnectionState] = []
        for await state in first {
            firstSeen.append(state)
            if firstSeen.count == expected.count { break }
        }
        var secondSeen: [ConnectionState] = []
        for await state in second {
            secondSeen.append(state)
            if secondSeen.count == expected.count { break }
        }
        #expect(firstSeen == expected)
        #expect(secondSeen == expected)
        let late = rig.supervisor.states
        for await state in late {
            #expect(state == .connected)
            break
        }
        await rig.finish()
    }
}
