import E2EECrypto
import E2EEKeyStore
@_spi(Benchmarks) @testable import E2EEMessaging
import Testing

@Suite("Receive: what is not ours, forged senders, floods")
struct HostileInputTests {
    @Test("guarantee 8: protocol_version 1 is flagged unencrypted; foreign v2 content and other versions are unsupported format")
    func notOurFormat() async throws {
        let h = try await ReceiveHarness.make()
        let peer = RemotePeer()
        let channel = ReceivingChannel.group()
        let plaintext = peer.posted("hello from the web client", kind: nil, channel: channel.id.rawValue, at: t(1), protocolVersion: 1)
        let foreignType = peer.posted(Base64.encode([0x03, 0x02, 0x00]), kind: nil, channel: channel.id.rawValue, at: t(2))
        let foreignBytes = peer.posted(Base64.encode([0x42] + [UInt8](repeating: 1, count: 120)), kind: .group, channel: channel.id.rawValue, at: t(3))
        let futureVersion = peer.posted("whatever", kind: .group, channel: channel.id.rawValue, at: t(4), protocolVersion: 3)
        let outcomes = try await h.ingest([plaintext, foreignType, foreignBytes, futureVersion], channel)
        #expect(outcomes[plaintext.id] == .unencrypted)
        #expect(outcomes[foreignType.id] == .unsupportedFormat)
        #expect(outcomes[foreignBytes.id] == .unsupportedFormat)
        #expect(outcomes[futureVersion.id] == .unsupportedFormat)
        let items = try await h.timeline(channel)
        #expect(items.map(\.state) == [.unencrypted, .unsupportedFormat, .unsupportedFormat, .unsupportedFormat])
        #expect(items.map(\.text) == ["hello from the web client", nil, nil, nil])
    }

    @Test("T16: a DM whose envelope names another device than the message, or a device of another user, is refused")
    func dmSenderClaims() async throws {
        let h = try await ReceiveHarness.make()
        let channel = ReceivingChannel.dm()
        let peer = try h.connectedPeer()
        let other = try h.connectedPeer(oneTimePrekey: 1)
        _ = try await h.ingest([try peer.dm("pin me", channel: channel.id.rawValue, to: [h.deviceID], at: t(1)),
                                try other.dm("pin me too", channel: channel.id.rawValue, to: [h.deviceID], at: t(1))], channel)
        let content = Envelope.dm(try peer.dmEnvelope(try peer.payload("claimed"), channel: channel.id.rawValue, to: [h.deviceID])).content()
        let wrongDevice = peer.posted(content, kind: .dm, channel: channel.id.rawValue, at: t(2), senderDeviceID: other.deviceID)
        let content2 = Envelope.dm(try peer.dmEnvelope(try peer.payload("claimed 2"), channel: channel.id.rawValue, to: [h.deviceID])).content()
        let wrongUser = peer.posted(content2, kind: .dm, channel: channel.id.rawValue, at: t(3), senderID: other.userID)
        let outcomes = try await h.ingest([wrongDevice, wrongUser], channel)
        #expect(outcomes[wrongDevice.id] == .undecryptable(.senderMismatch))
        #expect(outcomes[wrongUser.id] == .undecryptable(.senderMismatch))
        // Nothing moved: the genuine rows of the same envelopes still decrypt.
        let genuine = peer.posted(content, kind: .dm, channel: channel.id.rawValue, at: t(4))
        let genuine2 = peer.posted(content2, kind: .dm, channel: channel.id.rawValue, at: t(5))
        let later = try await h.ingest([genuine, genuine2], channel)
        #expect(later[genuine.id] == .decrypted && later[genuine2.id] == .decrypted)
    }

    @Test("wrong envelope for the channel, not a recipient, and a message of another channel are typed outcomes")
    func misplacedMessages() async throws {
        let h = try await ReceiveHarness.make()
        let peer = try h.connectedPeer()
        let dmChannel = ReceivingChannel.dm()
        let group = ReceivingChannel.group()
        let groupInDM = peer.posted(try peer.group("x", channel: dmChannel.id.rawValue, at: t(1)).content, kind: .group, channel: dmChannel.id.rawValue, at: t(1))
        let other = try await LocalAccount.make(store: try KeyStore.inMemory(), now: h.clock.now)
        try peer.connect(to: other.bundle())
        let notForUs = try peer.dm("not for you", channel: dmChannel.id.rawValue, to: [other.device.deviceID.rawValue], at: t(2))
        let misrouted = try peer.dm("wrong channel", channel: group.id.rawValue, to: [h.deviceID], at: t(3))
        let outcomes = try await h.ingest([groupInDM, notForUs, misrouted], dmChannel)
        #expect(outcomes[groupInDM.id] == .undecryptable(.wrongEnvelopeType))
        #expect(outcomes[notForUs.id] == .undecryptable(.notARecipient))
        #expect(outcomes[misrouted.id] == .refused(.wrongChannel))
        #expect(try await h.store.receivedMessage(id: misrouted.id.rawValue) == nil)
    }

    @Test("T17: a flood of malformed and oversized contents gives one typed outcome each; the stream goes on")
    func malformedFlood() async throws {
        let h = try await ReceiveHarness.make(chunkSize: 64)
        let peer = try h.connectedPeer()
        let channel = ReceivingChannel.group()
        _ = try await h.ingest([try peer.skd(channel: channel.id.rawValue, to: [h.deviceID], at: t(0))], channel)
        let valid = try peer.groupEnvelope(try peer.payload("survivor"), channel: channel.id.rawValue).encoded()
        var random = SystemRandomNumberGenerator()
        var flood: [ServerMessage] = []
        for index in 0..<1_500 {
            var bytes: [UInt8]
            switch index % 6 {
            case 0: bytes = Array(valid.prefix(Int.random(in: 0..<valid.count, using: &random)))
            case 1: bytes = valid; bytes[Int.random(in: 0..<bytes.count, using: &random)] ^= UInt8.random(in: 1...255, using: &random)
            case 2: bytes = [0x03, UInt8.random(in: 0...5, using: &random)] + (0..<Int.random(in: 0..<300, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random) }
            case 3: bytes = valid + [0x00]
            case 4: bytes = [0x03, 0x03] + (0..<40).map { _ in UInt8.random(in: 0...255, using: &random) }
            default: bytes = (0..<Int.random(in: 1..<200, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random) }
            }
            let kind: EnvelopeKind = index % 4 == 0 ? .senderKeyDistribution : .group
            flood.append(peer.posted(Base64.encode(bytes), kind: kind, channel: channel.id.rawValue, at: t(1, Int64(index))))
        }
        flood.append(peer.posted(String(repeating: "A", count: ProtocolLimits.maxContentBase64Length + 4), kind: .group, channel: channel.id.rawValue, at: t(2)))
        flood.append(peer.posted("not base64 at all!", kind: .group, channel: channel.id.rawValue, at: t(2, 1)))
        let survivor = peer.posted(Base64.encode(valid), kind: .group, channel: channel.id.rawValue, at: t(3))
        let outcomes = try await h.pipeline.ingest(flood + [survivor], channel: channel)
        var byID: [MessageID: [ReceiveOutcome.Result]] = [:]
        for outcome in outcomes { byID[outcome.messageID, default: []].append(outcome.result) }
        #expect(byID[survivor.id] == [.decrypted])
        // Each flooded message has exactly one outcome, and none of them is readable.
        let floodIDs = Set(flood.map(\.id))
        #expect(floodIDs.allSatisfy { byID[$0]?.count == 1 })
        #expect(!outcomes.contains { floodIDs.contains($0.messageID) && ($0.result == .decrypted || $0.result == .keyDistribution) })
        #expect(byID[flood[flood.count - 2].id] == [.undecryptable(.limitExceeded)])
        #expect(byID[flood[flood.count - 1].id] == [.undecryptable(.malformed)])
        let readable = try await h.timeline(channel).filter { $0.state == .decrypted }
        #expect(readable.map(\.text) == ["survivor"])
    }
}
