import E2EECrypto
@_spi(StoreInternals) import E2EEKeyStore
@_spi(Benchmarks) @testable import E2EEMessaging
import GRDB
import Testing

@Suite("Receive: direct messages")
struct DirectMessageReceiveTests {
    @Test("a prekey message starts the session and pins the device; later messages decrypt, out of order too")
    func prekeyMessagesStartTheSession() async throws {
        let h = try await ReceiveHarness.make()
        let peer = try h.connectedPeer()
        let channel = ReceivingChannel.dm()
        let first = try peer.dm("hello", channel: channel.id.rawValue, to: [h.deviceID], at: t(1))
        let second = try peer.dm("again", channel: channel.id.rawValue, to: [h.deviceID], at: t(2))
        let outcomes = try await h.ingest([second, first], channel)
        #expect(outcomes[first.id] == .decrypted)
        #expect(outcomes[second.id] == .decrypted)
        let items = try await h.timeline(channel)
        #expect(items.map(\.text) == ["hello", "again"])
        #expect(items.allSatisfy { $0.state == .decrypted && $0.senderDeviceID?.rawValue == peer.deviceID && $0.senderUserID?.rawValue == peer.userID && !$0.isOwn })
        let pins = try await h.store.remoteIdentities(deviceID: peer.deviceID)
        #expect(pins.map(\.identityBlob) == [peer.identity.publicIdentity.bytes])
        #expect(try await h.store.oneTimePrekeyCount(state: .consumed) == 1)
        #expect(h.consumed.all == [h.account.oneTimePrekeys[0].id])
        let events = await h.publishedEvents()
        // The peer's user is met here for the first time: its device is pinned, not announced as new.
        #expect(events.filter { $0 == .identity(.newDevice(userID: UserID(peer.userID), deviceID: DeviceID(peer.deviceID))) }.isEmpty)
        #expect(events.flatMap(\.timelineChanges).contains(TimelineChange(channelID: channel.id, messageID: first.id, kind: .inserted)))
    }

    @Test("one committed batch is one timeline event listing its changes, not one event per message")
    func oneEventPerCommittedBatch() async throws {
        let h = try await ReceiveHarness.make()
        let peer = try h.connectedPeer()
        let channel = ReceivingChannel.dm()
        let messages = try (1...5).map { try peer.dm("m\($0)", channel: channel.id.rawValue, to: [h.deviceID], at: t($0)) }
        _ = try await h.ingest(messages, channel)
        let timelineEvents = await h.publishedEvents().filter { !$0.timelineChanges.isEmpty }
        #expect(timelineEvents.count == 1, "\(timelineEvents)")
        #expect(timelineEvents.first?.timelineChanges.map(\.messageID) == messages.map(\.id))
        #expect(timelineEvents.first?.timelineChanges.allSatisfy { $0.kind == .inserted } == true)
    }

    @Test("after our reply the peer sends normal messages, which decrypt in the stored session")
    func normalMessagesAfterReply() async throws {
        let h = try await ReceiveHarness.make()
        let peer = try h.connectedPeer()
        let channel = ReceivingChannel.dm()
        _ = try await h.ingest([try peer.dm("one", channel: channel.id.rawValue, to: [h.deviceID], at: t(1))], channel)
        try peer.receiveReply(try await h.account.reply(to: peer, store: h.store), from: h.deviceID)
        let envelope = try peer.dmEnvelope(try peer.payload("two"), channel: channel.id.rawValue, to: [h.deviceID])
        guard case .normal = try PairwiseMessage(bytes: try envelope.pairwiseMessage(for: WireUUID(text: h.deviceID))) else {
            Issue.record("expected a normal pairwise message")
            return
        }
        let normal = peer.posted(Envelope.dm(envelope).content(), kind: .dm, channel: channel.id.rawValue, at: t(2))
        #expect(try await h.ingest([normal], channel)[normal.id] == .decrypted)
        #expect(try await h.timeline(channel).map(\.text) == ["one", "two"])
    }

    @Test("a normal message with no session yet waits, and is re-driven when the prekey message arrives")
    func normalMessageWaitsForSession() async throws {
        // Store A sees the prekey message first, so the peer can get our reply and send a
        // normal message; store B, the same device with the same ratchet randomness, receives
        // them the other way round.
        let a = try await ReceiveHarness.make(random: DeterministicRandom(seed: [UInt8]([9])))
        let peer = try a.connectedPeer()
        let channel = ReceivingChannel.dm()
        let prekey = try peer.dm("first", channel: channel.id.rawValue, to: [a.deviceID], at: t(1))
        _ = try await a.ingest([prekey], channel)
        try peer.receiveReply(try await a.account.reply(to: peer, store: a.store), from: a.deviceID)
        let normal = try peer.dm("second", channel: channel.id.rawValue, to: [a.deviceID], at: t(2))

        let storeB = try KeyStore.inMemory()
        try await a.account.install(into: storeB)
        let b = try await ReceiveHarness.make(store: storeB, account: a.account, listed: a.listed, random: DeterministicRandom(seed: [UInt8]([9])))
        let waiting = WaitingKey.session(userID: UserID(peer.userID), deviceID: DeviceID(peer.deviceID))
        #expect(try await b.ingest([normal], channel)[normal.id] == .pending(waitingFor: waiting))
        #expect(try await b.timeline(channel).map(\.state) == [.pending])
        let outcomes = try await b.pipeline.ingest([prekey], channel: channel)
        #expect(outcomes == [ReceiveOutcome(messageID: prekey.id, result: .decrypted), ReceiveOutcome(messageID: normal.id, result: .decrypted)])
        #expect(try await b.timeline(channel).map(\.text) == ["first", "second"])
        #expect(try await b.store.pendingCount() == 0)
        let events = await b.publishedEvents()
        #expect(events.flatMap(\.timelineChanges).contains(TimelineChange(channelID: channel.id, messageID: normal.id, kind: .pending)))
        #expect(events.flatMap(\.timelineChanges).contains(TimelineChange(channelID: channel.id, messageID: normal.id, kind: .decrypted)))
    }

    @Test("T15: a replayed prekey message whose EK_A was accepted is refused; the same bytes again are a duplicate")
    func replayedPrekeyMessage() async throws {
        let h = try await ReceiveHarness.make()
        let other = try await LocalAccount.make(store: try KeyStore.inMemory(), now: h.clock.now)
        let peer = try h.connectedPeer()
        try peer.connect(to: other.bundle())
        let channel = ReceivingChannel.dm()
        let envelope = try peer.dmEnvelope(try peer.payload("once"), channel: channel.id.rawValue, to: [h.deviceID, other.device.deviceID.rawValue])
        let original = peer.posted(Envelope.dm(envelope).content(), kind: .dm, channel: channel.id.rawValue, at: t(1))
        #expect(try await h.ingest([original], channel)[original.id] == .decrypted)
        // The peer starts six newer sessions: the first one leaves the record's archive.
        for index in 0..<6 {
            try peer.connect(to: h.account.bundle(oneTimePrekey: index + 1))
            let message = try peer.dm("newer \(index)", channel: channel.id.rawValue, to: [h.deviceID], at: t(Int64(2 + index)))
            #expect(try await h.ingest([message], channel)[message.id] == .decrypted)
        }
        let sessionBefore = try await h.store.currentSession(userID: peer.userID, deviceID: peer.deviceID)?.state

        let sameBytes = peer.posted(original.content, kind: .dm, channel: channel.id.rawValue, at: t(20))
        #expect(try await h.ingest([sameBytes], channel)[sameBytes.id] == .duplicate(of: original.id.rawValue))
        // The server strips the other recipient's entry: new bytes, the same prekey message.
        let stripped = try DMEnvelope(senderDevice: envelope.senderDevice, payloadNonce: envelope.payloadNonce, keyCommit: envelope.keyCommit,
                                      recipients: envelope.recipients.filter { $0.recipientDevice.text == h.deviceID },
                                      payloadCiphertext: envelope.payloadCiphertext)
        let replay = peer.posted(Envelope.dm(stripped).content(), kind: .dm, channel: channel.id.rawValue, at: t(21))
        #expect(try await h.ingest([replay], channel)[replay.id] == .undecryptable(.replay))
        #expect(try await h.store.currentSession(userID: peer.userID, deviceID: peer.deviceID)?.state == sessionBefore)
        #expect(try await h.timeline(channel).filter { $0.state == .decrypted }.count == 7)
    }

    @Test("T15: a one-time prekey served twice works within the 7-day grace window, not after it")
    func oneTimePrekeyGraceWindow() async throws {
        let h = try await ReceiveHarness.make()
        let channel = ReceivingChannel.dm()
        let first = try h.connectedPeer(oneTimePrekey: 0)
        let second = try h.connectedPeer(oneTimePrekey: 0)
        let late = try h.connectedPeer(oneTimePrekey: 0)
        let a = try first.dm("a", channel: channel.id.rawValue, to: [h.deviceID], at: t(1))
        let b = try second.dm("b", channel: channel.id.rawValue, to: [h.deviceID], at: t(2))
        let c = try late.dm("c", channel: channel.id.rawValue, to: [h.deviceID], at: t(3))
        #expect(try await h.ingest([a], channel)[a.id] == .decrypted)
        h.clock.advance(seconds: 3 * 86_400)
        #expect(try await h.ingest([b], channel)[b.id] == .decrypted)
        h.clock.advance(seconds: 5 * 86_400)
        #expect(try await h.ingest([c], channel)[c.id] == .undecryptable(.unknownPrekey))
        #expect(try await h.store.currentSession(userID: late.userID, deviceID: late.deviceID) == nil)
    }

    @Test("a pinned device presenting another identity is refused, recorded once and surfaced")
    func identityChangeRefused() async throws {
        let h = try await ReceiveHarness.make()
        let channel = ReceivingChannel.dm()
        let peer = try h.connectedPeer()
        let genuine = try peer.dm("genuine", channel: channel.id.rawValue, to: [h.deviceID], at: t(1))
        _ = try await h.ingest([genuine], channel)
        let sessionBefore = try await h.store.currentSession(userID: peer.userID, deviceID: peer.deviceID)?.state

        let impostor = RemotePeer(userID: peer.userID, deviceID: peer.deviceID)
        try impostor.connect(to: h.account.bundle(oneTimePrekey: 1))
        let forged = try impostor.dm("forged", channel: channel.id.rawValue, to: [h.deviceID], at: t(2))
        let again = try impostor.dm("forged again", channel: channel.id.rawValue, to: [h.deviceID], at: t(3))
        #expect(try await h.ingest([forged], channel)[forged.id] == .undecryptable(.identityChanged))
        #expect(try await h.ingest([again], channel)[again.id] == .undecryptable(.identityChanged))

        let pins = try await h.store.remoteIdentities(deviceID: peer.deviceID)
        #expect(pins.map(\.identityBlob) == [peer.identity.publicIdentity.bytes])
        let changes = try await h.store.read { db in try h.store.remoteIdentityStore.loadIdentityChanges(userID: peer.userID, db) }
        #expect(changes.map(\.newBlob) == [impostor.identity.publicIdentity.bytes])
        #expect(try await h.store.currentSession(userID: peer.userID, deviceID: peer.deviceID)?.state == sessionBefore)
        let events = await h.publishedEvents()
        #expect(events.filter { $0 == .identity(.identityChanged(userID: UserID(peer.userID), deviceID: DeviceID(peer.deviceID))) }.count == 1)
        #expect(try await h.timeline(channel).map(\.state) == [.decrypted, .undecryptable(.identityChanged), .undecryptable(.identityChanged)])
    }

    @Test("a device not pinned yet waits while its listed identity cannot be fetched, then decrypts on redrivePending")
    func waitsForListedIdentity() async throws {
        let h = try await ReceiveHarness.make()
        let channel = ReceivingChannel.dm()
        let peer = try h.connectedPeer()
        h.listed.setFailing(true)
        let message = try peer.dm("later", channel: channel.id.rawValue, to: [h.deviceID], at: t(1))
        let waiting = WaitingKey.identity(userID: UserID(peer.userID), deviceID: DeviceID(peer.deviceID))
        #expect(try await h.ingest([message], channel)[message.id] == .pending(waitingFor: waiting))
        #expect(try await h.store.remoteIdentities(deviceID: peer.deviceID).isEmpty)
        #expect(try await h.store.oneTimePrekeyCount(state: .consumed) == 0)
        h.listed.setFailing(false)
        #expect(try await h.pipeline.redrivePending() == [ReceiveOutcome(messageID: message.id, result: .decrypted)])
        #expect(try await h.timeline(channel).map(\.text) == ["later"])
    }

    @Test("T16: a device the server does not list for the sender user is refused")
    func unlistedDeviceRefused() async throws {
        let h = try await ReceiveHarness.make()
        let channel = ReceivingChannel.dm()
        let stranger = RemotePeer()
        try stranger.connect(to: h.account.bundle())
        let message = try stranger.dm("hi", channel: channel.id.rawValue, to: [h.deviceID], at: t(1))
        #expect(try await h.ingest([message], channel)[message.id] == .undecryptable(.senderMismatch))
        #expect(try await h.store.remoteIdentities(deviceID: stranger.deviceID).isEmpty)
        #expect(try await h.store.oneTimePrekeyCount(state: .consumed) == 0)
    }

    @Test("a message claiming our device is ours only when the outbox recognised it; one it never sent is refused")
    func ownDeviceMessages() async throws {
        let h = try await ReceiveHarness.make()
        let channel = ReceivingChannel.dm()
        let peer = try h.connectedPeer()
        let ours = peer.posted("opaque", kind: .dm, channel: channel.id.rawValue, at: t(1), senderID: h.account.device.userID.rawValue, senderDeviceID: h.deviceID)
        let forged = peer.posted("opaque2", kind: .dm, channel: channel.id.rawValue, at: t(2), senderID: h.account.device.userID.rawValue, senderDeviceID: h.deviceID)
        let outcomes = try await h.ingest([ours, forged], channel, ownEchoes: [ours.id])
        #expect(outcomes[ours.id] == .own)
        #expect(outcomes[forged.id] == .undecryptable(.ownDeviceClaimed))
        #expect(try await h.timeline(channel).map(\.messageID) == [forged.id])
    }

    @Test("T10: a DM replayed into another channel is refused without moving the session; the original then decrypts")
    func dmReplayIntoAnotherChannel() async throws {
        let h = try await ReceiveHarness.make()
        let peer = try h.connectedPeer()
        let home = ReceivingChannel.dm()
        let elsewhere = ReceivingChannel.dm()
        let original = try peer.dm("for home", channel: home.id.rawValue, to: [h.deviceID], at: t(1))
        let replay = peer.posted(original.content, kind: .dm, channel: elsewhere.id.rawValue, at: t(1))
        #expect(try await h.ingest([replay], elsewhere)[replay.id] == .undecryptable(.badTag))
        #expect(try await h.store.currentSession(userID: peer.userID, deviceID: peer.deviceID) == nil)
        #expect(try await h.ingest([original], home)[original.id] == .decrypted)
        #expect(try await h.timeline(elsewhere).map(\.state) == [.undecryptable(.badTag)])
    }

    @Test("archived sessions are tried: the one that decrypts becomes current, in the store's session rows too")
    func archivedSessionPromoted() async throws {
        let h = try await ReceiveHarness.make()
        let peer = try h.connectedPeer(oneTimePrekey: 0)
        let channel = ReceivingChannel.dm()
        _ = try await h.ingest([try peer.dm("s1 first", channel: channel.id.rawValue, to: [h.deviceID], at: t(1))], channel)
        let first = peer.sessions[h.deviceID]
        try peer.connect(to: h.account.bundle(oneTimePrekey: 1))
        _ = try await h.ingest([try peer.dm("s2 first", channel: channel.id.rawValue, to: [h.deviceID], at: t(2))], channel)
        let second = peer.sessions[h.deviceID]
        let baseKeys = { (record: SessionRecord?) in record.map { [$0.current.baseKey] } ?? [] }

        peer.setSession(first, with: h.deviceID)
        let old = try peer.dm("s1 again", channel: channel.id.rawValue, to: [h.deviceID], at: t(3))
        #expect(try await h.ingest([old], channel)[old.id] == .decrypted)
        let current = try #require(try await h.store.currentSession(userID: peer.userID, deviceID: peer.deviceID))
        #expect([try SessionState(serialized: current.state).baseKey] == baseKeys(first))
        let rows = try await h.store.sessions(userID: peer.userID, deviceID: peer.deviceID, limit: 10)
        #expect(rows.count == 2 && rows.filter(\.isCurrent).count == 1)

        peer.setSession(second, with: h.deviceID)
        let newer = try peer.dm("s2 again", channel: channel.id.rawValue, to: [h.deviceID], at: t(4))
        #expect(try await h.ingest([newer], channel)[newer.id] == .decrypted)
        let promoted = try #require(try await h.store.currentSession(userID: peer.userID, deviceID: peer.deviceID))
        #expect([try SessionState(serialized: promoted.state).baseKey] == baseKeys(second))
        #expect(try await h.timeline(channel).map(\.text) == ["s1 first", "s2 first", "s1 again", "s2 again"])
    }
}
