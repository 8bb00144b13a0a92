import E2EECrypto
@_spi(StoreInternals) import E2EEKeyStore
@_spi(Benchmarks) @testable import E2EEMessaging
import Testing

/// The receiving half of docs/spec/protocol.md §3.17: a pairwise entry refused as too far ahead
/// asks for a ratchet restart in the commit that stores the refusal, and changes nothing else.
@Suite("Receive: a too-far-ahead entry asks for a ratchet restart")
struct RatchetRestartReceiveTests {
    /// A peer that has a session with our device and has had our reply, so it sends normal
    /// messages.
    private static func answeredPeer(_ h: ReceiveHarness, _ channel: ReceivingChannel) async throws -> RemotePeer {
        let peer = try h.connectedPeer()
        _ = try await h.ingest([try peer.dm("hello", channel: channel.id.rawValue, to: [h.deviceID], at: t(1))], channel)
        try peer.receiveReply(try await h.account.reply(to: peer, store: h.store), from: h.deviceID)
        return peer
    }

    /// A DM row as `peer` posts it, its entry for `device` moved `counter` positions ahead
    /// (the header's `N` rewritten; nothing authenticates it before the AEAD, which is never
    /// reached).
    static func forgedAhead(_ peer: RemotePeer, counter: UInt32 = 5_000, channel: String, to device: String, at micros: Int64) throws -> ServerMessage {
        let genuine = try peer.dmEnvelope(try peer.payload("forged"), channel: channel, to: [device])
        let target = try WireUUID(text: device)
        let entries = try genuine.recipients.map { entry in
            entry.recipientDevice == target ? try RecipientEntry(recipientDevice: target, pairwiseMessage: withCounter(entry.pairwiseMessage, counter)) : entry
        }
        let forged = try DMEnvelope(senderDevice: genuine.senderDevice, payloadNonce: genuine.payloadNonce, keyCommit: genuine.keyCommit,
                                    recipients: entries, payloadCiphertext: genuine.payloadCiphertext)
        return peer.posted(Envelope.dm(forged).content(), kind: .dm, channel: channel, at: micros)
    }

    /// `pairwise` (normal or prekey, docs/spec/protocol.md §3.15) with its header's `N` set to `counter`.
    static func withCounter(_ pairwise: [UInt8], _ counter: UInt32) -> [UInt8] {
        // The header follows the type byte of the normal message: at 1, or after a prekey
        // message's 106-byte prefix; `N` follows the ratchet key (32) and `PN` (4).
        let normalStart = pairwise.first == 0x02 ? 1 + 65 + 32 + 4 + 4 : 0
        let at = normalStart + 1 + 32 + 4
        var bytes = pairwise
        bytes.replaceSubrange(at..<at + 4, with: [UInt8(counter >> 24 & 0xff), UInt8(counter >> 16 & 0xff), UInt8(counter >> 8 & 0xff), UInt8(counter & 0xff)])
        return bytes
    }

    private static func restart(_ h: ReceiveHarness, _ peer: RemotePeer) async throws -> SessionRestart? {
        try await h.store.read { db in try h.store.sessionStore.loadRestart(userID: peer.userID, deviceID: peer.deviceID, db) }
    }

    private static func sessionBytes(_ h: ReceiveHarness, _ peer: RemotePeer) async throws -> [[UInt8]] {
        try await h.store.sessions(userID: peer.userID, deviceID: peer.deviceID, limit: 10).map { $0.state.unprotectedCopy() }
    }

    @Test("a DM entry 5,000 ahead is refused as too far ahead, asks for a restart, and leaves the session as it was")
    func forgedEntryAsksForRestart() async throws {
        let h = try await ReceiveHarness.make()
        let channel = ReceivingChannel.dm()
        let peer = try await Self.answeredPeer(h, channel)
        let before = try await Self.sessionBytes(h, peer)
        #expect(try await Self.restart(h, peer) == nil)

        let forged = try Self.forgedAhead(peer, channel: channel.id.rawValue, to: h.deviceID, at: t(2))
        #expect(try await h.ingest([forged], channel)[forged.id] == .undecryptable(.tooFarAhead))
        let asked = try #require(try await Self.restart(h, peer))
        #expect(asked.requestedAt == h.clock.now)
        #expect(asked.restartedAt == nil)
        #expect(try await Self.sessionBytes(h, peer) == before, "the session is not touched")
    }

    @Test("the stream goes on: genuine messages in the forged one's batch, before and after it, decrypt in the same session")
    func forgedEntryNeverStalls() async throws {
        let h = try await ReceiveHarness.make()
        let channel = ReceivingChannel.dm()
        let peer = try await Self.answeredPeer(h, channel)
        let first = try peer.dm("one", channel: channel.id.rawValue, to: [h.deviceID], at: t(2))
        let forged = try Self.forgedAhead(peer, channel: channel.id.rawValue, to: h.deviceID, at: t(3))
        let second = try peer.dm("two", channel: channel.id.rawValue, to: [h.deviceID], at: t(4))
        let outcomes = try await h.ingest([first, forged, second], channel)
        #expect(outcomes[first.id] == .decrypted)
        #expect(outcomes[forged.id] == .undecryptable(.tooFarAhead))
        #expect(outcomes[second.id] == .decrypted)
        #expect(try await h.timeline(channel).compactMap(\.text) == ["hello", "one", "two"])
        #expect(try await Self.restart(h, peer)?.requestedAt != nil)
    }

    @Test("a prekey message of a known session 5,000 ahead asks too; a header within the limit asks nothing")
    func prekeyFormAndWithinLimit() async throws {
        let h = try await ReceiveHarness.make()
        let channel = ReceivingChannel.dm()
        let peer = try h.connectedPeer()
        _ = try await h.ingest([try peer.dm("hello", channel: channel.id.rawValue, to: [h.deviceID], at: t(1))], channel)
        // Within the limit: a gap of 999 skipped keys decrypts (the header is real here).
        for _ in 0..<999 { _ = try peer.dmEnvelope(try peer.payload("lost"), channel: channel.id.rawValue, to: [h.deviceID]) }
        let late = try peer.dm("late", channel: channel.id.rawValue, to: [h.deviceID], at: t(2))
        #expect(try await h.ingest([late], channel)[late.id] == .decrypted)
        #expect(try await Self.restart(h, peer) == nil)

        // The peer has had no reply: its entries are prekey messages of the session we answer.
        let forged = try Self.forgedAhead(peer, channel: channel.id.rawValue, to: h.deviceID, at: t(3))
        #expect(try await h.ingest([forged], channel)[forged.id] == .undecryptable(.tooFarAhead))
        #expect(try await Self.restart(h, peer)?.requestedAt != nil)
    }
}
