import E2EECrypto
import Testing

@Suite("Sender key state serialisation")
struct SenderKeySerializationTests {
    @Test("sending state: versioned round trip that keeps encrypting identically")
    func sendingRoundTrip() throws {
        var group = GroupFixture()
        _ = try group.send(3)
        let bytes = group.sender.serialized()
        #expect(bytes.count == 89)
        #expect(bytes.unprotectedCopy()[0] == 0x01)
        let restored = try SenderKeySendingState(serialized: bytes)
        #expect(restored.serialized() == bytes)
        let a = try group.sender.encrypt(Array("same".utf8), senderDevice: group.senderDevice,
                                         using: DeterministicRandom(seed: Array("nonce".utf8))).envelope
        let b = try restored.encrypt(Array("same".utf8), senderDevice: group.senderDevice,
                                     using: DeterministicRandom(seed: Array("nonce".utf8))).envelope
        #expect(a == b)
    }

    @Test("receiving state: round trip with skipped keys, and every malformed form is typed")
    func receivingMalformed() throws {
        var group = GroupFixture()
        var receiver = try group.installReceiver()
        let envelopes = try group.send(4)
        receiver = try receiver.decrypt(envelopes[3], channel: group.channel, now: group.now).state
        let bytes = receiver.serialized().unprotectedCopy()
        let restored = try SenderKeyReceivingState(serialized: SecretBytes(copying: bytes))
        #expect(restored.skippedIterations == [0, 1, 2])
        #expect(try restored.decrypt(envelopes[1], channel: group.channel, now: group.now).plaintext.text == "message 1")

        var version = bytes
        version[0] = 0x02
        #expect(throws: ProtocolError.unsupportedVersion(.senderKeyState, value: 0x02)) { try SenderKeyReceivingState(serialized: SecretBytes(copying: version)) }
        #expect(throws: ProtocolError.trailingBytes(.senderKeyState, count: 1)) { try SenderKeyReceivingState(serialized: SecretBytes(copying: bytes + [0])) }
        #expect(throws: ProtocolError.self) { try SenderKeyReceivingState(serialized: SecretBytes(copying: bytes.dropLast())) }
        // The "last decrypted" flag sits after 1+16+16+4+4+4+32+32+8 = 117 bytes.
        var flag = bytes
        flag[117] = 2
        #expect(throws: ProtocolError.malformed(.senderKeyState, reason: "flag byte 2")) { try SenderKeyReceivingState(serialized: SecretBytes(copying: flag)) }
        // Skipped iterations out of order (swap the first two entries' iterations).
        var order = bytes
        let first = 1 + 16 + 16 + 4 + 4 + 4 + 32 + 32 + 8 + 1 + 8 + 1 + 4 + 2
        order[first + 3] = 1
        order[first + 36 + 3] = 0
        #expect(throws: ProtocolError.malformed(.senderKeyState, reason: "skipped iterations out of order or range")) {
            try SenderKeyReceivingState(serialized: SecretBytes(copying: order))
        }
        #expect(throws: ProtocolError.unsupportedVersion(.senderKeyState, value: 0x00)) {
            try SenderKeySendingState(serialized: SecretBytes(copying: [0x00] + [UInt8](repeating: 0, count: 88)))
        }
    }
}
