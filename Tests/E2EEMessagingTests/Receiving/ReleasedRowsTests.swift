import E2EECrypto
@_spi(StoreInternals) import E2EEKeyStore
@_spi(Benchmarks) @testable import E2EEMessaging
import Foundation
import Testing

/// Race 9 of ``ReceiveScheduler``: a key installed in one device's lane that releases another
/// device's waiting rows must not decrypt them in that lane — outside their device's lock, where
/// a lane of that device in another batch (or a send) could advance the same session at once.
@Suite("Receive: rows another device's message releases")
struct ReleasedRowsTests {
    /// A gate a test opens once.
    final class Gate: Sendable {
        private let stream: AsyncStream<Void>
        private let continuation: AsyncStream<Void>.Continuation

        init() { (stream, continuation) = AsyncStream<Void>.makeStream() }
        func open() { continuation.finish() }
        func wait() async { for await _ in stream {} }
    }

    @Test("our own device settles a DM request: the other user's waiting message is decrypted under its own device's lock, not in our device's lane",
          .timeLimit(.minutes(1)))
    func releasedRowWaitsForItsDeviceLock() async throws {
        let locks = KeyedAsyncLock()
        let h = try await ReceiveHarness.make(locks: locks)
        let dm = ReceivingChannel.dm()
        // A DM this device learned but has not accepted: no participants fixed.
        try await h.store.write { db in
            _ = try h.store.channelTrustStore.pin(ChannelPin(channelID: dm.id.rawValue, isDM: true, standing: .request, pinnedAt: StoreTime(microseconds: 0)), db)
        }
        let bob = try h.connectedPeer()
        let fromBob = try bob.dm("hi from bob", channel: dm.id.rawValue, to: [h.deviceID], at: t(1))
        #expect(try await h.ingest([fromBob], dm)[fromBob.id] == .pending(waitingFor: WaitingKey.request(channelID: dm.id)))

        // Our own other device writes in the DM, naming Bob (`with`): that settles the request.
        let ownDevice = try h.connectedPeer(userID: h.account.device.userID.rawValue)
        // …a device this one trusts (listed at its login): only such a device's `with` decides.
        try await h.store.storeAccount(AccountRecord(serverURL: "s", userID: h.account.device.userID.rawValue, deviceID: h.deviceID,
                                                     accessToken: nil, refreshToken: nil, updatedAt: StoreTime(microseconds: 0)))
        try await h.store.write { db in
            try h.store.recipientStore.storeKnownDevices([(h.account.device.userID.rawValue, ownDevice.deviceID)], at: StoreTime(microseconds: 0), db)
        }
        let payload = try MessagePayload(id: WireUUID(text: newID()), timestamp: 1_700_000_000_000, text: "hi bob", with: WireUUID(text: bob.userID))
            .encodedJSON()
        let ours = ownDevice.posted(Envelope.dm(try ownDevice.dmEnvelope(payload, channel: dm.id.rawValue, to: [h.deviceID])).content(), kind: .dm,
                                    channel: dm.id.rawValue, at: t(2))

        // Bob's device is busy elsewhere (its lock held, as by a lane of another batch).
        let held = Gate()
        let release = Gate()
        let holder = Task {
            await locks.withLock(LockKeys.session(DeviceID(bob.deviceID))) {
                held.open()
                await release.wait()
            }
        }
        await held.wait()
        let ingest = Task { try await h.pipeline.ingest([ours], channel: dm) }
        // Our own message commits in our device's lane…
        for _ in 0..<200 where try await h.store.receivedMessage(id: ours.id.rawValue)?.message.state != .decrypted {
            try await Task.sleep(for: .milliseconds(10))
        }
        #expect(try await h.store.receivedMessage(id: ours.id.rawValue)?.message.state == .decrypted)
        try await Task.sleep(for: .milliseconds(300))
        // …but Bob's released message waits for Bob's device.
        #expect(try await h.store.receivedMessage(id: fromBob.id.rawValue)?.message.state == .pendingKey,
                "decrypted outside its device's lock")

        release.open()
        await holder.value
        let outcomes = try await ingest.value
        #expect(outcomes.contains(ReceiveOutcome(messageID: fromBob.id, result: .decrypted)))
        #expect(try await h.timeline(dm).compactMap(\.text) == ["hi from bob", "hi bob"])
    }
}
