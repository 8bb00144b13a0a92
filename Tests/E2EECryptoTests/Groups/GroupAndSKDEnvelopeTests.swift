import E2EECrypto
import Testing

@Suite("Group and SKD envelopes")
struct GroupAndSKDEnvelopeTests {
    @Test("group envelope: exact layout and a byte-for-byte round trip")
    func groupRoundTrip() throws {
        var group = GroupFixture()
        let envelope = try group.send(2)[1]
        let bytes = envelope.encoded()
        #expect(Array(bytes[0..<2]) == [0x03, 0x02])
        #expect(Array(bytes[2..<18]) == group.senderDevice.bytes)
        #expect(Array(bytes[22..<26]) == [0, 0, 0, 1])
        #expect(Array(bytes[26..<38]) == envelope.nonce)
        #expect(bytes.count == 38 + envelope.ciphertext.count + 64)
        #expect(envelope.header == Array(bytes[0..<38]))
        #expect(try GroupEnvelope.decode(bytes) == envelope)
        #expect(try Envelope.decode(bytes) == .group(envelope))
        #expect(envelope.identity(channel: group.channel) == GroupMessageIdentity(channel: group.channel, senderDevice: group.senderDevice, keyID: envelope.keyID, iteration: 1))
    }

    @Test("group envelope: malformed and oversized forms are typed")
    func groupMalformed() throws {
        let header: [UInt8] = [0x03, 0x02] + [UInt8](repeating: 0, count: 36)
        let signature = [UInt8](repeating: 0, count: 64)
        #expect(throws: ProtocolError.truncated(.groupEnvelope, expected: 118, actual: 117)) {
            try GroupEnvelope.decode(header + [UInt8](repeating: 0, count: 15) + signature)
        }
        #expect(throws: ProtocolError.limitExceeded(.groupEnvelope, limit: 65_552, actual: 65_553)) {
            try GroupEnvelope.decode(header + [UInt8](repeating: 0, count: 65_553) + signature)
        }
        #expect(try GroupEnvelope.decode(header + [UInt8](repeating: 0, count: 65_552) + signature).ciphertext.count == 65_552)
        #expect(throws: ProtocolError.unsupportedVersion(.groupEnvelope, value: 0x01)) {
            try GroupEnvelope.decode([0x03, 0x01] + header.dropFirst(2) + [UInt8](repeating: 0, count: 16) + signature)
        }
        #expect(throws: ProtocolError.malformed(.groupEnvelope, reason: "signature of 63 bytes")) {
            try GroupEnvelope(senderDevice: randomUUID(), keyID: 1, iteration: 0, nonce: [UInt8](repeating: 0, count: 12),
                              ciphertext: [UInt8](repeating: 0, count: 16), signature: [UInt8](repeating: 0, count: 63))
        }
    }

    @Test("SKD envelope: seal, route each entry, install; no trailing bytes")
    func skdRoundTrip() throws {
        let group = GroupFixture()
        let devices = (0..<4).map { _ in randomUUID() }
        let pairwise = TestPairwise(devices: devices)
        let envelope = try SKDEnvelope.seal(group.sender.distribution, senderDevice: group.senderDevice, recipients: devices, pairwiseEncrypt: pairwise.encrypt)
        let bytes = envelope.encoded()
        #expect(Array(bytes[0..<2]) == [0x03, 0x03])
        let decoded = try SKDEnvelope.decode(bytes)
        #expect(decoded == envelope)
        for device in devices {
            let plaintext = try pairwise.decrypt(device, decoded.pairwiseMessage(for: device))
            guard case .senderKeyDistribution(let skd) = try PairwisePlaintext.decode(plaintext) else {
                Issue.record("expected an SKD")
                return
            }
            guard case .install(let state) = try skd.process(postedChannel: group.channel, senderDevice: decoded.senderDevice, existing: nil, now: 0) else {
                Issue.record("expected an install")
                return
            }
            #expect(state.keyID == group.sender.keyID)
        }
        #expect(throws: ProtocolError.trailingBytes(.skdEnvelope, count: 1)) { try SKDEnvelope.decode(bytes + [0]) }
        #expect(throws: ProtocolError.limitExceeded(.skdEnvelope, limit: 1000, actual: 1001)) {
            try SKDEnvelope.decode([0x03, 0x03] + group.senderDevice.bytes + [0x03, 0xE9])
        }
        #expect(throws: ProtocolError.invalidRecipients(reason: "an entry addressed to the sending device")) {
            try SKDEnvelope.seal(group.sender.distribution, senderDevice: group.senderDevice, recipients: [group.senderDevice], pairwiseEncrypt: pairwise.encrypt)
        }
    }

    @Test("an envelope too big for the content limit is refused at sealing")
    func oversizedAtSealing() throws {
        let group = GroupFixture()
        let devices = (0..<10).map { _ in randomUUID() }
        // 20 + 10 × (18 + 65,535) = 655,550 bytes → 874,068 base64 characters, above 524,288.
        #expect(throws: ProtocolError.limitExceeded(.skdEnvelope, limit: 524_288, actual: 874_068)) {
            try SKDEnvelope.seal(group.sender.distribution, senderDevice: group.senderDevice, recipients: devices) { _, _ in
                [UInt8](repeating: 1, count: 65_535)
            }
        }
        #expect(throws: ProtocolError.limitExceeded(.recipientEntry, limit: 65_535, actual: 65_536)) {
            try SKDEnvelope.seal(group.sender.distribution, senderDevice: group.senderDevice, recipients: devices) { _, _ in
                [UInt8](repeating: 1, count: 65_536)
            }
        }
    }

    @Test("unknown format or type bytes are typed at the dispatcher")
    func dispatcher() throws {
        #expect(throws: ProtocolError.truncated(.content, expected: 2, actual: 0)) { try Envelope.decode([]) }
        #expect(throws: ProtocolError.unsupportedVersion(.content, value: 0x01)) { try Envelope.decode([0x01, 0x01]) }
        #expect(throws: ProtocolError.unsupportedVersion(.content, value: 0x04)) { try Envelope.decode([0x03, 0x04]) }
        #expect(throws: ProtocolError.unsupportedVersion(.content, value: 0x00)) { try Envelope.decode([0x03, 0x00]) }
    }
}
