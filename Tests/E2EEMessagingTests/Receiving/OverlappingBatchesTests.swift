@_spi(StoreInternals) import E2EEKeyStore
import E2EECrypto
@_spi(Benchmarks) @testable import E2EEMessaging
import Foundation
import Testing

@Suite("Receive: batches of different channels overlap")
struct OverlappingBatchesTests {
    @Test("a DM held by a slow directory does not hold up another channel's batch; both open", .timeLimit(.minutes(1)))
    func slowChannelDoesNotBlockAnother() async throws {
        let h = try await ReceiveHarness.make(listedIdentityLimit: .seconds(30))
        let slowPeer = try h.connectedPeer(oneTimePrekey: 0)
        let quickPeer = try h.connectedPeer(oneTimePrekey: 1)
        let slowChannel = ReceivingChannel.dm()
        let quickChannel = ReceivingChannel.dm()
        let held = try slowPeer.dm("held", channel: slowChannel.id.rawValue, to: [h.deviceID], at: t(1))
        let quick = try quickPeer.dm("quick", channel: quickChannel.id.rawValue, to: [h.deviceID], at: t(2))
        let entered = Signal()
        let answer = Signal()
        let slowUser = slowPeer.userID
        h.listed.setHold { userID in
            guard userID == slowUser else { return }
            entered.fire()
            await answer.wait()
        }
        let slow = Task { try await h.ingest([held], slowChannel) }
        await entered.wait()

        let quickTask = Task { try await h.ingest([quick], quickChannel) }
        let quickFirst = await withTaskGroup(of: Bool.self) { group in
            group.addTask { _ = try? await quickTask.value; return true }
            group.addTask { try? await Task.sleep(for: .seconds(10)); return false }
            let first = await group.next() ?? false
            group.cancelAll()
            return first
        }
        #expect(quickFirst, "the other channel's batch waited for the held one")
        answer.fire()
        #expect(try await quickTask.value[quick.id] == .decrypted)
        #expect(try await slow.value[held.id] == .decrypted)
        #expect(try await h.reader.item(messageID: held.id)?.text == "held")
        #expect(try await h.reader.item(messageID: quick.id)?.text == "quick")
    }

    @Test("one message id delivered for two channels at once is planned once: one batch queues it, the other finds it known",
          .timeLimit(.minutes(1)))
    func sameIDInTwoChannels() async throws {
        for _ in 0..<5 {
            let h = try await ReceiveHarness.make()
            let peer = try h.connectedPeer()
            let channel = ReceivingChannel.group()
            let other = ReceivingChannel.group()
            // No sender key yet: the message waits in the pending queue.
            let message = try peer.group("early", channel: channel.id.rawValue, at: t(1))
            var copy = message
            copy.channelID = other.id
            async let first = h.ingest([message], channel)
            async let second = h.ingest([copy], other)
            let results = try await [first[message.id], second[message.id]]
            #expect(results.filter { if case .pending = $0 { true } else { false } }.count == 1, "\(results)")
            #expect(results.filter { if case .duplicate = $0 { true } else { false } }.count == 1, "\(results)")
            #expect(try await h.store.pendingCount() == 1)
        }
    }

    @Test("phase times: each batch is counted, and its plan, preparation, lanes and commits take time")
    func phaseTimes() async throws {
        let h = try await ReceiveHarness.make()
        #expect(h.pipeline.phaseTimes() == ReceivePhaseTimes())
        let peer = try h.connectedPeer()
        let channel = ReceivingChannel.dm()
        let messages = try (1...3).map { try peer.dm("m\($0)", channel: channel.id.rawValue, to: [h.deviceID], at: t(Int64($0))) }
        _ = try await h.ingest(messages, channel)
        _ = try await h.ingest([messages[0]], channel)
        let times = h.pipeline.phaseTimes()
        #expect(times.batches == 2)
        #expect(times.plan > .zero && times.prepare > .zero && times.lanes > .zero && times.commit > .zero)
        #expect(times.commit <= times.lanes)
    }
}
