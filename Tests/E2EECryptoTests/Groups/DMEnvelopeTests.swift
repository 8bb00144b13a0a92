import E2EECrypto
import Testing

@Suite("DM envelopes")
struct DMEnvelopeTests {
    let channel = randomUUID()
    let sender = randomUUID()
    let recipients = (0..<3).map { _ in randomUUID() }
    let pairwise: TestPairwise
    let payload = Array("{\"v\":1,\"id\":\"00000000-0000-4000-8000-000000000001\",\"ts\":1,\"text\":\"hi\"}".utf8)

    init() {
        pairwise = TestPairwise(devices: recipients)
    }

    func seal() throws -> DMEnvelope {
        try DMEnvelope.seal(payload: payload, channel: channel, senderDevice: sender, recipients: recipients, using: SystemRandom(), pairwiseEncrypt: pairwise.encrypt)
    }

    func open(_ envelope: DMEnvelope, as device: WireUUID, channel: WireUUID? = nil) throws -> SecretBytes {
        let plaintext = try pairwise.decrypt(device, envelope.pairwiseMessage(for: device))
        return try envelope.open(pairwisePlaintext: plaintext, channel: channel ?? self.channel)
    }

    @Test("every recipient opens the payload; encoding round-trips byte for byte")
    func roundTrip() throws {
        let envelope = try seal()
        let bytes = envelope.encoded()
        #expect(Array(bytes[0..<2]) == [0x03, 0x01])
        let decoded = try DMEnvelope.decode(bytes)
        #expect(decoded == envelope)
        #expect(decoded.encoded() == bytes)
        #expect(envelope.keyCommit.count == 32)
        for device in recipients {
            #expect(try open(decoded, as: device).unprotectedCopy() == payload)
        }
        #expect(throws: ProtocolError.notARecipient) { try decoded.pairwiseMessage(for: sender) }
    }

    @Test("the opening order is hash, key commitment, AEAD; each failure is typed")
    func openingChecks() throws {
        let envelope = try seal()
        let device = recipients[0]
        let plaintext = try pairwise.decrypt(device, envelope.pairwiseMessage(for: device))
        // Another channel: the AAD differs.
        #expect(throws: ProtocolError.badTag) { try envelope.open(pairwisePlaintext: plaintext, channel: randomUUID()) }
        // The server swaps the payload ciphertext: the entry's hash no longer matches.
        var ciphertext = envelope.payloadCiphertext
        ciphertext[0] ^= 1
        let swapped = try DMEnvelope(senderDevice: sender, payloadNonce: envelope.payloadNonce, keyCommit: envelope.keyCommit, recipients: envelope.recipients, payloadCiphertext: ciphertext)
        #expect(throws: ProtocolError.keyCommitMismatch) { try swapped.open(pairwisePlaintext: plaintext, channel: channel) }
        // A wrong key commitment.
        var commit = envelope.keyCommit
        commit[31] ^= 1
        let badCommit = try DMEnvelope(senderDevice: sender, payloadNonce: envelope.payloadNonce, keyCommit: commit, recipients: envelope.recipients, payloadCiphertext: envelope.payloadCiphertext)
        #expect(throws: ProtocolError.keyCommitMismatch) { try badCommit.open(pairwisePlaintext: plaintext, channel: channel) }
        // A key entry from another message.
        let other = try seal()
        let otherPlaintext = try pairwise.decrypt(device, other.pairwiseMessage(for: device))
        #expect(throws: ProtocolError.keyCommitMismatch) { try envelope.open(pairwisePlaintext: otherPlaintext, channel: channel) }
        // A sender device changed: AAD binds it.
        let otherSender = try DMEnvelope(senderDevice: randomUUID(), payloadNonce: envelope.payloadNonce, keyCommit: envelope.keyCommit, recipients: envelope.recipients, payloadCiphertext: envelope.payloadCiphertext)
        #expect(throws: ProtocolError.badTag) { try otherSender.open(pairwisePlaintext: plaintext, channel: channel) }
        // An SKD where the DM key belongs.
        let skd = PairwisePlaintext.senderKeyDistribution(GroupFixture().sender.distribution).encoded()
        #expect(throws: ProtocolError.wrongEnvelopeType) { try envelope.open(pairwisePlaintext: skd, channel: channel) }
        // A link plaintext (type 0x03, reserved by §3.16) where the DM key belongs.
        let link = SecretBytes(copying: [PairwisePlaintext.reservedLinkType] + [UInt8](repeating: 1, count: 50))
        #expect(throws: ProtocolError.wrongEnvelopeType) { try envelope.open(pairwisePlaintext: link, channel: channel) }
    }

    @Test("recipient rules at sealing: 1…1000, distinct, never the sending device")
    func sealingRecipientRules() throws {
        let encrypt = pairwise.encrypt
        #expect(throws: ProtocolError.limitExceeded(.dmEnvelope, limit: 1, actual: 0)) {
            try DMEnvelope.seal(payload: payload, channel: channel, senderDevice: sender, recipients: [], using: SystemRandom(), pairwiseEncrypt: encrypt)
        }
        #expect(throws: ProtocolError.limitExceeded(.dmEnvelope, limit: 1000, actual: 1001)) {
            try DMEnvelope.seal(payload: payload, channel: channel, senderDevice: sender, recipients: (0...1000).map { _ in randomUUID() }, using: SystemRandom(), pairwiseEncrypt: encrypt)
        }
        #expect(throws: ProtocolError.invalidRecipients(reason: "the same recipient twice")) {
            try DMEnvelope.seal(payload: payload, channel: channel, senderDevice: sender, recipients: [recipients[0], recipients[0]], using: SystemRandom(), pairwiseEncrypt: encrypt)
        }
        #expect(throws: ProtocolError.invalidRecipients(reason: "an entry addressed to the sending device")) {
            try DMEnvelope.seal(payload: payload, channel: channel, senderDevice: sender, recipients: [recipients[0], sender], using: SystemRandom(), pairwiseEncrypt: encrypt)
        }
        #expect(throws: ProtocolError.limitExceeded(.payload, limit: 65_536, actual: 65_537)) {
            try DMEnvelope.seal(payload: [UInt8](repeating: 0x20, count: 65_537), channel: channel, senderDevice: sender, recipients: recipients, using: SystemRandom(), pairwiseEncrypt: encrypt)
        }
    }

    /// `0x03 0x01 || sender || nonce || commit` then whatever follows.
    func prefix() -> [UInt8] { [0x03, 0x01] + sender.bytes + [UInt8](repeating: 0, count: 44) }

    func entry(_ device: WireUUID, length: Int) -> [UInt8] {
        device.bytes + [UInt8(length >> 8), UInt8(length & 0xff)] + [UInt8](repeating: 1, count: length)
    }

    @Test("strict decoding: every malformed or oversized form is typed, counts checked before entries")
    func malformed() throws {
        let ct = [UInt8](repeating: 0, count: 16)
        let ok = prefix() + [0, 1] + entry(recipients[0], length: 69) + ct
        #expect(try DMEnvelope.decode(ok).recipients.count == 1)
        #expect(throws: ProtocolError.truncated(.dmEnvelope, expected: 2, actual: 1)) { try DMEnvelope.decode([0x03]) }
        #expect(throws: ProtocolError.unsupportedVersion(.dmEnvelope, value: 0x04)) { try DMEnvelope.decode([0x04] + ok.dropFirst()) }
        #expect(throws: ProtocolError.unsupportedVersion(.dmEnvelope, value: 0x02)) { try DMEnvelope.decode([0x03, 0x02] + ok.dropFirst(2)) }
        // n = 0, and n = 1001 with nothing after it: the count is refused before any entry is read.
        #expect(throws: ProtocolError.limitExceeded(.dmEnvelope, limit: 1, actual: 0)) { try DMEnvelope.decode(prefix() + [0, 0] + ct) }
        #expect(throws: ProtocolError.limitExceeded(.dmEnvelope, limit: 1000, actual: 1001)) { try DMEnvelope.decode(prefix() + [0x03, 0xE9]) }
        #expect(throws: ProtocolError.limitExceeded(.dmEnvelope, limit: 1000, actual: 65_535)) { try DMEnvelope.decode(prefix() + [0xFF, 0xFF]) }
        // A pairwise message below 69 bytes; a length larger than what remains.
        #expect(throws: ProtocolError.truncated(.recipientEntry, expected: 69, actual: 68)) { try DMEnvelope.decode(prefix() + [0, 1] + entry(recipients[0], length: 68) + ct) }
        #expect(throws: ProtocolError.self) { try DMEnvelope.decode(prefix() + [0, 1] + recipients[0].bytes + [0xFF, 0xFF] + ct) }
        // Duplicate recipients and the sender as recipient.
        #expect(throws: ProtocolError.invalidRecipients(reason: "the same recipient twice")) {
            try DMEnvelope.decode(prefix() + [0, 2] + entry(recipients[0], length: 69) + entry(recipients[0], length: 69) + ct)
        }
        #expect(throws: ProtocolError.invalidRecipients(reason: "an entry addressed to the sending device")) {
            try DMEnvelope.decode(prefix() + [0, 1] + entry(sender, length: 69) + ct)
        }
        // payload_ct below a tag, and above 65,552 bytes.
        #expect(throws: ProtocolError.truncated(.dmEnvelope, expected: 16, actual: 15)) { try DMEnvelope.decode(prefix() + [0, 1] + entry(recipients[0], length: 69) + ct.dropLast()) }
        #expect(throws: ProtocolError.limitExceeded(.dmEnvelope, limit: 65_552, actual: 65_553)) {
            try DMEnvelope.decode(prefix() + [0, 1] + entry(recipients[0], length: 69) + [UInt8](repeating: 0, count: 65_553))
        }
        // Truncated inside the fixed header.
        #expect(throws: ProtocolError.truncated(.dmEnvelope, expected: 30, actual: 20)) { try DMEnvelope.decode(Array(ok.prefix(20))) }
    }
}
