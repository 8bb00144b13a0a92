@testable import E2EEMessaging
import Testing

/// The deaf-socket rules through the supervisor, against fake sockets on a manual clock.
@Suite("Connection supervisor: deaf sockets")
struct DeafSocketSupervisorTests {
    private func message(_ id: String) -> RealtimeEvent {
        .messageNew(ServerMessage(id: MessageID(id), channelID: "c", senderID: "u", senderDeviceID: "d", content: "x", contentType: "text",
                                  protocolVersion: 1, replyToID: nil, editedAt: nil, createdAt: ServerTimestamp(microseconds: 1)))
    }

    @Test("an echo missing after its timeout closes the socket and opens a new one with the catch-up")
    func missingEcho() async throws {
        let rig = await SupervisorRig()
        await rig.supervisor.start()
        guard let first = await rig.socket(1) else { return }
        await rig.waitForCalls { $0.contains(.catchUp(.connected)) }
        await rig.supervisor.expectEcho(messageID: "M1")
        await rig.fire(SupervisorRig.policy.echoTimeout)
        #expect(await first.closeReason.wait { $0 == .closedByClient })
        guard await rig.socket(2) != nil else { return }
        await rig.waitForCalls { $0.filter { $0 == .catchUp(.connected) }.count == 2 }
        #expect(rig.states.value.suffix(2) == [.reconnecting(attempt: 1), .connected])
        await rig.finish()
    }

    @Test("an echo that arrived before its 201 (any case) is not awaited; one that arrives in time cancels the wait")
    func echoesSeen() async throws {
        let rig = await SupervisorRig()
        await rig.supervisor.start()
        guard let socket = await rig.socket(1) else { return }
        await rig.waitForCalls { $0.contains(.catchUp(.connected)) }
        socket.emit(.event(message("m1")))
        await rig.waitForCalls { $0.contains(.event(message("m1"))) }
        await rig.supervisor.expectEcho(messageID: "M1")  // already delivered: no timer
        await rig.supervisor.expectEcho(messageID: "m2")
        #expect(await rig.clock.waitForSleep(SupervisorRig.policy.echoTimeout))
        socket.emit(.event(message("m2")))
        await rig.waitForCalls { $0.contains(.event(message("m2"))) }
        #expect(await rig.clock.pending.wait { !$0.contains(SupervisorRig.policy.echoTimeout) })
        #expect(socket.closeReason.value == nil)
        #expect(rig.connector.opened.value.count == 1)
        await rig.finish()
    }

    @Test("the echo check: its channel subscribed on open, a typing.stop there after the quiet interval, its echo kept from the delegate; unanswered, the socket is reopened")
    func echoCheck() async throws {
        var policy = SupervisorRig.policy
        policy.echoCheckInterval = .seconds(40)  // 35 s with the rig's draw of 0.5
        let rig = await SupervisorRig(policy: policy)
        let channel = rig.supervisor.echoCheckChannel
        await rig.supervisor.start()
        guard let first = await rig.socket(1) else { return }
        #expect(await first.subscribed.wait { $0.contains(channel.rawValue) })
        await rig.waitForCalls { $0.contains(.catchUp(.connected)) }

        await rig.fire(.seconds(35))
        #expect(await first.typing.wait { $0 == ["stop \(channel)"] })
        first.emit(.event(.typing(userID: "me", channelID: channel, started: false)))
        #expect(await rig.clock.pending.wait { !$0.contains(.seconds(11)) && $0.contains(.seconds(35)) }, "answered, the wait starts again")
        first.emit(.event(message("m1")))
        await rig.waitForCalls { $0.contains(.event(message("m1"))) }
        #expect(!rig.delegate.events.contains { if case .typing = $0 { true } else { false } }, "the echo is ours alone")
        #expect(first.closeReason.value == nil)

        // The next check gets no answer: deaf.
        await rig.fire(.seconds(35))
        #expect(await first.typing.wait { $0.count == 2 })
        await rig.fire(.seconds(11))
        #expect(await first.closeReason.wait { $0 == .closedByClient })
        guard let second = await rig.socket(2) else { return }
        #expect(await second.subscribed.wait { $0.contains(channel.rawValue) }, "the same channel on every socket")
        await rig.waitForCalls { $0.filter { $0 == .catchUp(.connected) }.count == 2 }
        await rig.finish()
    }

    @Test("a sibling device's echo check (a typing.stop for a channel of its own) answers ours too, and reaches the delegate")
    func foreignEventsAnswer() async throws {
        var policy = SupervisorRig.policy
        policy.echoCheckInterval = .seconds(40)
        let rig = await SupervisorRig(policy: policy)
        await rig.supervisor.start()
        guard let socket = await rig.socket(1) else { return }
        await rig.waitForCalls { $0.contains(.catchUp(.connected)) }
        await rig.fire(.seconds(35))
        #expect(await socket.typing.wait { $0.count == 1 })
        let sibling = RealtimeEvent.typing(userID: "me", channelID: "another-device-check", started: false)
        socket.emit(.event(sibling))
        await rig.waitForCalls { $0.contains(.event(sibling)) }
        #expect(await rig.clock.pending.wait { !$0.contains(.seconds(11)) })
        #expect(socket.closeReason.value == nil)
        await rig.finish()
    }

    @Test("the membership watch is asked on its interval while connected")
    func membershipWatch() async throws {
        var policy = SupervisorRig.policy
        policy.membershipWatchInterval = .seconds(900)
        let rig = await SupervisorRig(policy: policy)
        await rig.supervisor.start()
        guard await rig.socket(1) != nil else { return }
        await rig.fire(.seconds(900))
        await rig.waitForCalls { $0.filter { $0 == .watchMembership }.count == 1 }
        await rig.fire(.seconds(900))
        await rig.waitForCalls { $0.filter { $0 == .watchMembership }.count == 2 }
        await rig.finish()
    }

    @Test("the light check: the delegate is asked on its interval; a miss reconnects, no miss keeps the socket")
    func periodicCheck() async throws {
        var policy = SupervisorRig.policy
        policy.deafCheckInterval = .seconds(240)
        let rig = await SupervisorRig(policy: policy)
        await rig.supervisor.start()
        guard let first = await rig.socket(1) else { return }
        await rig.fire(.seconds(240))
        await rig.waitForCalls { $0.filter { $0 == .checkSocket }.count == 1 }
        #expect(first.closeReason.value == nil)
        rig.delegate.answerChecks(missed: true)
        await rig.fire(.seconds(240))
        #expect(await first.closeReason.wait { $0 == .closedByClient })
        guard await rig.socket(2) != nil else { return }
        await rig.waitFor(.connected)
        await rig.finish()
    }
}
