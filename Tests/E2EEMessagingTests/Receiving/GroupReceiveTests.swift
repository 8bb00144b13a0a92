import E2EECrypto
@_spi(StoreInternals) import E2EEKeyStore
@_spi(Benchmarks) @testable import E2EEMessaging
import Testing

@Suite("Receive: groups")
struct GroupReceiveTests {
    /// A harness, a connected peer and a group channel whose SKD the peer has posted.
    private func groupWithKey() async throws -> (ReceiveHarness, RemotePeer, ReceivingChannel, ServerMessage) {
        let h = try await ReceiveHarness.make()
        let peer = try h.connectedPeer()
        let channel = ReceivingChannel.group()
        let skd = try peer.skd(channel: channel.id.rawValue, to: [h.deviceID], at: t(0))
        #expect(try await h.ingest([skd], channel)[skd.id] == .keyDistribution)
        return (h, peer, channel, skd)
    }

    private func senderKeyState(_ h: ReceiveHarness, _ peer: RemotePeer, _ channel: ReceivingChannel) async throws -> SecretBytes? {
        guard let keyID = peer.senderKeys[channel.id.rawValue]?.keyID else { return nil }
        return try await h.store.receiverSenderKey(SenderKeyAddress(channelID: channel.id.rawValue, senderDeviceID: peer.deviceID, keyID: keyID))?.state
    }

    @Test("an SKD installs the sender key; group messages decrypt; the SKD is not in the timeline")
    func skdThenMessages() async throws {
        let (h, peer, channel, skd) = try await groupWithKey()
        let one = try peer.group("one", channel: channel.id.rawValue, at: t(1))
        let two = try peer.group("two", channel: channel.id.rawValue, at: t(2))
        let outcomes = try await h.ingest([two, one], channel)
        #expect(outcomes[one.id] == .decrypted && outcomes[two.id] == .decrypted)
        let items = try await h.timeline(channel)
        #expect(items.map(\.text) == ["one", "two"])
        #expect(!items.contains { $0.messageID == skd.id })
        #expect(try await h.reader.item(messageID: skd.id) == nil)
        #expect(try await h.store.receivedMessage(id: skd.id.rawValue)?.facts.kind == .control)
    }

    @Test("guarantee 3: a group message before its SKD waits, and is re-driven when the SKD arrives")
    func messageBeforeItsSKD() async throws {
        let h = try await ReceiveHarness.make()
        let peer = try h.connectedPeer()
        let channel = ReceivingChannel.group()
        let skd = try peer.skd(channel: channel.id.rawValue, to: [h.deviceID], at: t(0))
        let early = try peer.group("early", channel: channel.id.rawValue, at: t(1))
        let keyID = try #require(peer.senderKeys[channel.id.rawValue]?.keyID)
        let waiting = WaitingKey.senderKey(SenderKeyAddress(channelID: channel.id.rawValue, senderDeviceID: peer.deviceID, keyID: keyID))
        #expect(try await h.ingest([early], channel)[early.id] == .pending(waitingFor: waiting))
        #expect(try await h.timeline(channel).map(\.state) == [.pending])
        let outcomes = try await h.pipeline.ingest([skd], channel: channel)
        #expect(outcomes == [ReceiveOutcome(messageID: skd.id, result: .keyDistribution), ReceiveOutcome(messageID: early.id, result: .decrypted)])
        #expect(try await h.timeline(channel).map(\.text) == ["early"])
        let events = await h.publishedEvents().filter { if case .timeline = $0 { return true } else { return false } }
        #expect(events.flatMap(\.timelineChanges) == [TimelineChange(channelID: channel.id, messageID: early.id, kind: .inserted),
                                                      TimelineChange(channelID: channel.id, messageID: early.id, kind: .pending),
                                                      TimelineChange(channelID: channel.id, messageID: early.id, kind: .decrypted)])
    }

    @Test("guarantee 3: in one batch, a message sorted before its SKD ends decrypted")
    func messageBeforeSKDInOneBatch() async throws {
        let h = try await ReceiveHarness.make()
        let peer = try h.connectedPeer()
        let channel = ReceivingChannel.group()
        let skd = try peer.skd(channel: channel.id.rawValue, to: [h.deviceID], at: t(5))
        let early = try peer.group("early", channel: channel.id.rawValue, at: t(1))
        let outcomes = try await h.pipeline.ingest([skd, early], channel: channel)
        #expect(outcomes.map(\.messageID) == [early.id, skd.id, early.id])
        #expect(outcomes.last?.result == .decrypted)
        #expect(try await h.timeline(channel).map(\.text) == ["early"])
    }

    @Test("T8: late, duplicate and out-of-order group messages all end readable, once")
    func lateDuplicateOutOfOrder() async throws {
        let (h, peer, channel, _) = try await groupWithKey()
        var messages: [ServerMessage] = []
        for index in 0..<5 { messages.append(try peer.group("m\(index)", channel: channel.id.rawValue, at: t(Int64(index + 1)))) }
        let first = try await h.ingest([messages[3], messages[1]], channel)
        #expect(first.values.allSatisfy { $0 == .decrypted })
        let second = try await h.ingest([messages[4], messages[0], messages[2], messages[3]], channel)
        #expect(second[messages[0].id] == .decrypted && second[messages[2].id] == .decrypted && second[messages[4].id] == .decrypted)
        #expect(second[messages[3].id] == .duplicate(of: nil))
        let copy = peer.posted(messages[2].content, kind: .group, channel: channel.id.rawValue, at: t(9))
        #expect(try await h.ingest([copy], channel)[copy.id] == .duplicate(of: messages[2].id.rawValue))
        #expect(try await h.timeline(channel).map(\.text) == ["m0", "m1", "m2", "m3", "m4"])
    }

    @Test("T9: a forged huge iteration and a jump over the limit are refused without moving the state; later messages decrypt")
    func hugeIterationRefused() async throws {
        let (h, peer, channel, _) = try await groupWithKey()
        let normal = try peer.group("before", channel: channel.id.rawValue, at: t(1))
        _ = try await h.ingest([normal], channel)
        let stateBefore = try await senderKeyState(h, peer, channel)

        // Forged: a real envelope with its iteration rewritten (the signature no longer matches).
        let genuine = try peer.groupEnvelope(try peer.payload("next"), channel: channel.id.rawValue)
        var bytes = genuine.encoded()
        bytes[22] = 0x7f
        let forged = peer.posted(Base64.encode(bytes), kind: .group, channel: channel.id.rawValue, at: t(2))
        // Genuinely signed, but 2,500 iterations ahead.
        let saved = try #require(peer.senderKeys[channel.id.rawValue])
        for _ in 0..<2_500 { _ = try peer.groupEnvelope(try peer.payload("skipped"), channel: channel.id.rawValue) }
        let jump = try peer.group("jump", channel: channel.id.rawValue, at: t(3))
        let outcomes = try await h.ingest([forged, jump], channel)
        #expect(outcomes[forged.id] == .undecryptable(.badSignature))
        #expect(outcomes[jump.id] == .undecryptable(.tooFarAhead))
        #expect(try await senderKeyState(h, peer, channel) == stateBefore)
        // A sender-key jump is not a broken ratchet: no pairwise restart is asked (§3.17 is §3.7's).
        #expect(try await h.store.read { db in try h.store.sessionStore.loadRestart(userID: peer.userID, deviceID: peer.deviceID, db) } == nil)

        let next = peer.posted(Envelope.group(genuine).content(), kind: .group, channel: channel.id.rawValue, at: t(4))
        peer.setSenderKey(saved, channel: channel.id.rawValue)
        _ = try peer.groupEnvelope(try peer.payload("burn"), channel: channel.id.rawValue)
        let after = try peer.group("after", channel: channel.id.rawValue, at: t(5))
        let later = try await h.ingest([next, after], channel)
        #expect(later[next.id] == .decrypted && later[after.id] == .decrypted)
        #expect(try await h.timeline(channel).compactMap(\.text) == ["before", "next", "after"])
    }

    @Test("T10: a group message replayed into another channel or with an altered header is refused")
    func replayIntoAnotherChannel() async throws {
        let h = try await ReceiveHarness.make()
        let peer = try h.connectedPeer()
        let home = ReceivingChannel.group()
        let elsewhere = ReceivingChannel.group()
        // The same sender key id in both channels (seeded random), so the replay finds a state.
        peer.setSenderKey(SenderKeySendingState.generate(channel: try WireUUID(text: home.id.rawValue), retainedKeyIDs: [], using: DeterministicRandom(seed: [UInt8]([1]))),
                          channel: home.id.rawValue)
        peer.setSenderKey(SenderKeySendingState.generate(channel: try WireUUID(text: elsewhere.id.rawValue), retainedKeyIDs: [], using: DeterministicRandom(seed: [UInt8]([1]))),
                          channel: elsewhere.id.rawValue)
        #expect(peer.senderKeys[home.id.rawValue]?.keyID == peer.senderKeys[elsewhere.id.rawValue]?.keyID)
        _ = try await h.ingest([try peer.skd(channel: home.id.rawValue, to: [h.deviceID], at: t(0))], home)
        _ = try await h.ingest([try peer.skd(channel: elsewhere.id.rawValue, to: [h.deviceID], at: t(0))], elsewhere)
        let message = try peer.group("home only", channel: home.id.rawValue, at: t(1))
        #expect(try await h.ingest([message], home)[message.id] == .decrypted)
        let replay = peer.posted(message.content, kind: .group, channel: elsewhere.id.rawValue, at: t(2))
        #expect(try await h.ingest([replay], elsewhere)[replay.id] == .undecryptable(.badSignature))

        var altered = try #require(try? Base64.decode(try peer.group("x", channel: home.id.rawValue, at: t(3)).content, maxEncodedLength: 1 << 20))
        altered[25] ^= 0x01
        let tampered = peer.posted(Base64.encode(altered), kind: .group, channel: home.id.rawValue, at: t(3))
        #expect(try await h.ingest([tampered], home)[tampered.id] == .undecryptable(.badSignature))
        #expect(try await h.timeline(elsewhere).map(\.text) == [nil])
    }

    @Test("T16: a group message claiming another sender device, or another sender user, is refused")
    func senderClaimsChecked() async throws {
        let (h, peer, channel, _) = try await groupWithKey()
        let other = try h.connectedPeer()
        let envelope = Envelope.group(try peer.groupEnvelope(try peer.payload("a"), channel: channel.id.rawValue)).content()
        let wrongDevice = peer.posted(envelope, kind: .group, channel: channel.id.rawValue, at: t(1), senderDeviceID: other.deviceID)
        let envelope2 = Envelope.group(try peer.groupEnvelope(try peer.payload("b"), channel: channel.id.rawValue)).content()
        let wrongUser = peer.posted(envelope2, kind: .group, channel: channel.id.rawValue, at: t(2), senderID: other.userID)
        let outcomes = try await h.ingest([wrongDevice, wrongUser], channel)
        #expect(outcomes[wrongDevice.id] == .undecryptable(.senderMismatch))
        #expect(outcomes[wrongUser.id] == .undecryptable(.senderMismatch))
        // The refusals moved nothing: the genuine rows still decrypt.
        let genuine = peer.posted(envelope, kind: .group, channel: channel.id.rawValue, at: t(3))
        #expect(try await h.ingest([genuine], channel)[genuine.id] == .decrypted)
    }

    @Test("an SKD posted in another channel than it names is refused, atomically, and stays out of the timeline")
    func skdForAnotherChannel() async throws {
        let h = try await ReceiveHarness.make()
        let peer = try h.connectedPeer()
        let home = ReceivingChannel.group()
        let elsewhere = ReceivingChannel.group()
        let skd = try peer.skd(channel: home.id.rawValue, to: [h.deviceID], at: t(0))
        let moved = peer.posted(skd.content, kind: .senderKeyDistribution, channel: elsewhere.id.rawValue, at: t(0))
        #expect(try await h.ingest([moved], elsewhere)[moved.id] == .undecryptable(.channelMismatch))
        #expect(try await h.timeline(elsewhere).isEmpty)
        // Nothing committed: the session did not move, so the genuine SKD still decrypts.
        #expect(try await h.ingest([skd], home)[skd.id] == .keyDistribution)
        let events = await h.publishedEvents()
        #expect(events.contains(.inputRefused(reason: "sender key distribution refused: channel_mismatch")))
    }

    @Test("redrivePending: an SKD waiting for its device's listed identity decrypts, and then unlocks the group messages waiting for it")
    func redriveChain() async throws {
        let h = try await ReceiveHarness.make()
        let peer = try h.connectedPeer()
        let channel = ReceivingChannel.group()
        h.listed.setFailing(true)
        let skd = try peer.skd(channel: channel.id.rawValue, to: [h.deviceID], at: t(0))
        let messages = try (1...3).map { try peer.group("g\($0)", channel: channel.id.rawValue, at: t(Int64($0))) }
        let first = try await h.ingest([skd] + messages, channel)
        #expect(first[skd.id] == .pending(waitingFor: WaitingKey.identity(userID: UserID(peer.userID), deviceID: DeviceID(peer.deviceID))))
        #expect(messages.allSatisfy { if case .pending = first[$0.id] { return true } else { return false } })
        #expect(try await h.store.pendingCount() == 4)
        h.listed.setFailing(false)
        let outcomes = try await h.pipeline.redrivePending()
        #expect(outcomes.first == ReceiveOutcome(messageID: skd.id, result: .keyDistribution))
        #expect(Set(outcomes.filter { $0.result == .decrypted }.map(\.messageID)) == Set(messages.map(\.id)))
        #expect(try await h.store.pendingCount() == 0)
        #expect(try await h.timeline(channel).map(\.text) == ["g1", "g2", "g3"])
    }

    @Test("§6.6: a signed group message at a position already decrypted, with other bytes, is refused as positionReused; the first stays")
    func usedIdentityWithOtherBytes() async throws {
        let (h, peer, channel, _) = try await groupWithKey()
        let saved = try #require(peer.senderKeys[channel.id.rawValue])
        let first = try peer.group("first", channel: channel.id.rawValue, at: t(1))
        peer.setSenderKey(saved, channel: channel.id.rawValue)
        let rival = try peer.group("rival at the same iteration", channel: channel.id.rawValue, at: t(2))
        let outcomes = try await h.ingest([first, rival], channel)
        #expect(outcomes[first.id] == .decrypted)
        #expect(outcomes[rival.id] == .undecryptable(.positionReused))
        #expect(try await h.timeline(channel).map(\.text) == ["first", nil])
    }
}
