import E2EECrypto
@_spi(StoreInternals) import E2EEKeyStore
@_spi(Benchmarks) @testable import E2EEMessaging
import GRDB
import Testing

@Suite("Receive: serial lanes and atomic commits")
struct LaneAndAtomicityTests {
    @Test("guarantee 3: one device's messages are decrypted one at a time in timeline order")
    func serialPerDevice() async throws {
        let h = try await ReceiveHarness.make(chunkSize: 7)
        let peer = try h.connectedPeer()
        let channel = ReceivingChannel.group()
        let skd = try peer.skd(channel: channel.id.rawValue, to: [h.deviceID], at: t(0))
        var messages = [skd]
        for index in 0..<40 { messages.append(try peer.group("m\(index)", channel: channel.id.rawValue, at: t(Int64(index + 1)))) }
        let outcomes = try await h.pipeline.ingest(messages.shuffled(), channel: channel)
        #expect(outcomes.map(\.messageID) == messages.map(\.id))
        #expect(outcomes.dropFirst().allSatisfy { $0.result == .decrypted })
        #expect(try await h.timeline(channel).map(\.text) == (0..<40).map { "m\($0)" })
    }

    @Test("guarantee 3: different sender devices proceed in parallel (one lane blocked does not block another)",
          .timeLimit(.minutes(1)))
    func parallelAcrossDevices() async throws {
        let h = try await ReceiveHarness.make()
        let blocked = try h.connectedPeer()
        let free = try h.connectedPeer(oneTimePrekey: 1)
        let channel = ReceivingChannel.group()
        let freeKey = try free.skd(channel: channel.id.rawValue, to: [h.deviceID], at: t(0))
        let freeMessage = try free.group("free", channel: channel.id.rawValue, at: t(2))
        let messages = [
            try blocked.skd(channel: channel.id.rawValue, to: [h.deviceID], at: t(0)),
            try blocked.group("blocked", channel: channel.id.rawValue, at: t(1)),
            freeKey,
            freeMessage,
        ]
        // The blocked device's lane waits inside its listed-identity fetch until the free
        // device's message has been committed and announced; if lanes ran one after the other
        // this would never happen.
        let freeDone = Signal()
        let blockedUser = blocked.userID
        h.listed.setHold { user in if user == blockedUser { await freeDone.wait() } }
        let watcher = Task {
            for await event in h.events where event.timelineChanges.contains(TimelineChange(channelID: channel.id, messageID: freeMessage.id, kind: .inserted)) {
                freeDone.fire()
                return
            }
        }
        let outcomes = try await h.pipeline.ingest(messages, channel: channel)
        watcher.cancel()
        #expect(outcomes.filter { $0.result == .decrypted }.count == 2)
        #expect(try await h.timeline(channel).map(\.text) == ["blocked", "free"])
    }

    @Test("guarantee 4: a store failure inside a batch commits nothing of it; the same batch again completes")
    func failureMidBatchStoresNothingPartial() async throws {
        let h = try await ReceiveHarness.make(chunkSize: 4)
        let peer = try h.connectedPeer()
        let channel = ReceivingChannel.group()
        _ = try await h.ingest([try peer.skd(channel: channel.id.rawValue, to: [h.deviceID], at: t(0))], channel)
        let messages = try (0..<10).map { try peer.group("m\($0)", channel: channel.id.rawValue, at: t(Int64($0 + 1))) }
        let keyID = try #require(peer.senderKeys[channel.id.rawValue]?.keyID)
        let address = SenderKeyAddress(channelID: channel.id.rawValue, senderDeviceID: peer.deviceID, keyID: keyID)
        // The sixth row's insert fails inside the second chunk's transaction (rows 5–8).
        try await h.store.write { db in
            try db.execute(sql: """
                CREATE TEMP TRIGGER fail_sixth BEFORE INSERT ON timeline WHEN NEW.message_id = '\(messages[5].id)'
                BEGIN SELECT RAISE(ABORT, 'injected failure'); END
                """)
        }
        await #expect(throws: DatabaseError.self) { try await h.pipeline.ingest(messages, channel: channel) }
        // The first chunk is stored whole when its commit ran before the second was handed in,
        // or not at all when both shared the failing transaction; never a part of one, and
        // nothing after the failure. The stored key state matches exactly what is stored.
        let stored = try await h.store.receivedMessages(ids: messages.map(\.id.rawValue))
        let committed = stored.count
        #expect(committed == 0 || committed == 4)
        #expect(Set(stored.keys) == Set(messages[0..<committed].map(\.id.rawValue)))
        let stateAfterFailure = try #require(try await h.store.receiverSenderKey(address)).state
        let state = try SenderKeyReceivingState(serialized: stateAfterFailure)
        #expect(state.nextIteration == UInt32(committed))

        try await h.store.write { db in try db.execute(sql: "DROP TRIGGER fail_sixth") }
        let retry = try await h.ingest(messages, channel)
        #expect(messages[0..<committed].allSatisfy { retry[$0.id] == .duplicate(of: nil) })
        #expect(messages[committed...].allSatisfy { retry[$0.id] == .decrypted })
        #expect(try await h.timeline(channel).map(\.text) == (0..<10).map { "m\($0)" })
    }

    @Test("a lane holds its device's session lock (shared with the sending side) until its commits are done",
          .timeLimit(.minutes(1)))
    func laneHoldsSessionLock() async throws {
        let locks = KeyedAsyncLock()
        let h = try await ReceiveHarness.make(locks: locks)
        let peer = try h.connectedPeer()
        let channel = ReceivingChannel.dm()
        let message = try peer.dm("hello", channel: channel.id.rawValue, to: [h.deviceID], at: t(1))
        let store = h.store
        let key = LockKeys.session(DeviceID(peer.deviceID))
        let sender = SenderTaskBox()
        // While the lane waits in its listed-identity fetch, a "send" asks for the same lock: it
        // must get it only once the lane's message is committed.
        h.listed.setHold { _ in
            sender.task = Task { try await locks.withLock(key) { try await store.receivedMessage(id: message.id.rawValue) != nil } }
        }
        #expect(try await h.ingest([message], channel)[message.id] == .decrypted)
        let sawCommitted = try await sender.task?.value
        #expect(sawCommitted == true)
    }
}

/// Carries the competing task out of the hold closure.
private final class SenderTaskBox: @unchecked Sendable {
    var task: Task<Bool, any Error>?
}
