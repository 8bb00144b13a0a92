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
