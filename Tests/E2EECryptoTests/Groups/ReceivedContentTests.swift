import E2EECrypto
import Testing

@Suite("Received content: version, content type, channel type, base64 limit, sender device")
struct ReceivedContentTests {
    func groupContent() throws -> (GroupFixture, GroupEnvelope, String) {
        var group = GroupFixture()
        let envelope = try group.send(1)[0]
        return (group, envelope, Envelope.group(envelope).content())
    }

    @Test("a group message decodes with its hash; the hash identifies the bytes")
    func accepted() throws {
        let (_, envelope, content) = try groupContent()
        let received = try ReceivedContent(content: content, contentType: "e2ee.group", protocolVersion: 2, channelEncryption: .senderKeys)
        #expect(received.envelope == .group(envelope))
        #expect(received.bytes == envelope.encoded())
        #expect(received.hash == SHA256.hash(envelope.encoded()))
        #expect(received.envelope.senderDevice == envelope.senderDevice)
    }

    @Test("protocol_version 1 is .unencrypted, others unsupported")
    func versions() throws {
        let (_, _, content) = try groupContent()
        #expect(throws: ProtocolError.unencrypted) { try ReceivedContent(content: "hello", contentType: "text", protocolVersion: 1, channelEncryption: .senderKeys) }
        #expect(throws: ProtocolError.unsupportedVersion(.content, value: 3)) { try ReceivedContent(content: content, contentType: "e2ee.group", protocolVersion: 3, channelEncryption: .senderKeys) }
        #expect(throws: ProtocolError.unsupportedVersion(.content, value: 0)) { try ReceivedContent(content: content, contentType: "e2ee.group", protocolVersion: -5, channelEncryption: .senderKeys) }
    }

    @Test("content_type must be known, match the channel's encryption_type and the envelope type")
    func typeMatching() throws {
        let (_, _, content) = try groupContent()
        #expect(throws: ProtocolError.wrongEnvelopeType) { try ReceivedContent(content: content, contentType: "e2ee.group", protocolVersion: 2, channelEncryption: .x3dh) }
        #expect(throws: ProtocolError.wrongEnvelopeType) { try ReceivedContent(content: content, contentType: "e2ee.skd", protocolVersion: 2, channelEncryption: .senderKeys) }
        #expect(throws: ProtocolError.wrongEnvelopeType) { try ReceivedContent(content: content, contentType: "e2ee.dm", protocolVersion: 2, channelEncryption: .x3dh) }
        #expect(throws: ProtocolError.wrongEnvelopeType) { try ReceivedContent(content: content, contentType: "text/plain", protocolVersion: 2, channelEncryption: .senderKeys) }
        #expect(EnvelopeKind.dm.channelEncryption == .x3dh)
        #expect(EnvelopeKind.senderKeyDistribution.contentType == "e2ee.skd")
        #expect(ChannelEncryptionType(rawValue: "sender_keys") == .senderKeys)
    }

    @Test("content length is checked before decoding; non-canonical base64 is malformed")
    func base64Rules() throws {
        let huge = String(repeating: "A", count: ProtocolLimits.maxContentBase64Length + 4)
        #expect(throws: ProtocolError.limitExceeded(.content, limit: 524_288, actual: 524_292)) {
            try ReceivedContent(content: huge, contentType: "e2ee.group", protocolVersion: 2, channelEncryption: .senderKeys)
        }
        for bad in ["QR==", "AwI", "AwI=\n", "Aw-_", " AwI="] {
            #expect(throws: ProtocolError.self) { try ReceivedContent(content: bad, contentType: "e2ee.group", protocolVersion: 2, channelEncryption: .senderKeys) }
        }
        // A maximal but garbage content is a typed envelope error, not a crash.
        let maximal = String(repeating: "A", count: ProtocolLimits.maxContentBase64Length)
        #expect(throws: ProtocolError.unsupportedVersion(.content, value: 0)) {
            try ReceivedContent(content: maximal, contentType: "e2ee.group", protocolVersion: 2, channelEncryption: .senderKeys)
        }
    }

    @Test("T16: the envelope's sender device must be the message's and one of the sender user's devices")
    func senderDeviceRule() throws {
        let device = randomUUID()
        let other = randomUUID()
        try SenderDeviceRule.check(envelopeDevice: device, messageDevice: device, senderUserDevices: [device, other])
        #expect(throws: ProtocolError.senderMismatch) { try SenderDeviceRule.check(envelopeDevice: device, messageDevice: other, senderUserDevices: [device, other]) }
        #expect(throws: ProtocolError.senderMismatch) { try SenderDeviceRule.check(envelopeDevice: device, messageDevice: nil, senderUserDevices: [device]) }
        #expect(throws: ProtocolError.senderMismatch) { try SenderDeviceRule.check(envelopeDevice: device, messageDevice: device, senderUserDevices: [other]) }
    }
}
