import E2EECrypto
import Testing

@Suite("Sender key distributions and pairwise plaintexts")
struct SenderKeyDistributionTests {
    @Test("SKD pairwise plaintext: type 0x02 then exactly 88 bytes, and a strict round trip")
    func roundTrip() throws {
        var group = GroupFixture()
        _ = try group.send(7)
        let skd = group.sender.distribution
        let plaintext = PairwisePlaintext.senderKeyDistribution(skd).encoded()
        #expect(plaintext.count == 89)
        let bytes = plaintext.unprotectedCopy()
        #expect(bytes[0] == 0x02)
        #expect(Array(bytes[1..<17]) == group.channel.bytes)
        #expect(Array(bytes[21..<25]) == [0, 0, 0, 7])
        #expect(Array(bytes[57..<89]) == group.sender.signingPublicKey.rawRepresentation)
        guard case .senderKeyDistribution(let decoded) = try PairwisePlaintext.decode(plaintext) else {
            Issue.record("expected an SKD")
            return
        }
        #expect(decoded == skd)
        #expect(try SenderKeyDistribution.decode(skd.encoded()) == skd)
    }

    @Test("strict decoding: wrong lengths, unknown type byte and unusable signing keys are typed")
    func strictDecoding() throws {
        let group = GroupFixture()
        let bytes = PairwisePlaintext.senderKeyDistribution(group.sender.distribution).encoded().unprotectedCopy()
        #expect(throws: ProtocolError.truncated(.pairwisePlaintext, expected: 89, actual: 88)) {
            try PairwisePlaintext.decode(SecretBytes(copying: bytes.dropLast()))
        }
        #expect(throws: ProtocolError.trailingBytes(.pairwisePlaintext, count: 1)) {
            try PairwisePlaintext.decode(SecretBytes(copying: bytes + [0]))
        }
        #expect(throws: ProtocolError.unsupportedVersion(.pairwisePlaintext, value: 0x04)) {
            try PairwisePlaintext.decode(SecretBytes(copying: [0x04] + bytes.dropFirst()))
        }
        // 0x03 is reserved for link plaintexts (§3.16): refused as a plaintext that belongs in
        // no envelope this version reads, whatever its length.
        for body in [Array(bytes.dropFirst()), [UInt8](repeating: 0, count: 50), []] {
            #expect(throws: ProtocolError.wrongEnvelopeType) { try PairwisePlaintext.decode(SecretBytes(copying: [PairwisePlaintext.reservedLinkType] + body)) }
        }
        #expect(throws: ProtocolError.truncated(.pairwisePlaintext, expected: 1, actual: 0)) {
            try PairwisePlaintext.decode(SecretBytes(copying: []))
        }
        // The identity point (small order) as SK_sig_pub.
        let smallOrder = Array(bytes[0..<57]) + [1] + [UInt8](repeating: 0, count: 31)
        #expect(throws: ProtocolError.invalidKey(.skdPlaintext)) { try PairwisePlaintext.decode(SecretBytes(copying: smallOrder)) }
        #expect(throws: ProtocolError.truncated(.skdPlaintext, expected: 88, actual: 87)) {
            try SenderKeyDistribution.decode(SecretBytes(copying: bytes[1..<88]))
        }
    }

    @Test("DM key entries: type 0x01, 64 bytes, strict")
    func dmKeyEntry() throws {
        let entry = [UInt8](repeating: 7, count: 64)
        guard case .dmKey(let decoded) = try PairwisePlaintext.decode(SecretBytes(copying: [0x01] + entry)) else {
            Issue.record("expected a DM key")
            return
        }
        #expect(decoded.payloadHash == [UInt8](repeating: 7, count: 32))
        #expect(PairwisePlaintext.dmKey(decoded).encoded().unprotectedCopy() == [0x01] + entry)
        #expect(throws: ProtocolError.trailingBytes(.pairwisePlaintext, count: 1)) { try PairwisePlaintext.decode(SecretBytes(copying: [0x01] + entry + [0])) }
        #expect(throws: ProtocolError.self) { try PairwisePlaintext.decode(SecretBytes(copying: [0x01] + entry.dropLast())) }
    }

    @Test("processing: unknown installs; the same key is ignored whatever its iteration; another signing key is refused")
    func processing() throws {
        var group = GroupFixture()
        let early = group.sender.distribution
        let installed = try group.installReceiver()
        _ = try group.send(4)
        let later = group.sender.distribution
        for skd in [early, later] {
            guard case .ignored = try skd.process(postedChannel: group.channel, senderDevice: group.senderDevice, existing: installed, now: group.now) else {
                Issue.record("a known sender key must be ignored")
                return
            }
        }
        // Another device's key with the same id and channel, but a different signing key.
        let impostor = SenderKeySendingState.generate(channel: group.channel, retainedKeyIDs: [], using: SystemRandom()).distribution
        let conflicting = try SenderKeyDistribution.decode(SecretBytes(copying:
            impostor.encoded().unprotectedCopy()[0..<16] + later.encoded().unprotectedCopy()[16..<56] + impostor.signingPublicKey.rawRepresentation))
        #expect(conflicting.keyID == installed.keyID)
        #expect(throws: ProtocolError.senderKeyConflict) {
            try conflicting.process(postedChannel: group.channel, senderDevice: group.senderDevice, existing: installed, now: group.now)
        }
    }

    @Test("an SKD posted in another channel is refused (typed)")
    func channelMismatch() throws {
        let group = GroupFixture()
        #expect(throws: ProtocolError.channelMismatch) {
            try group.sender.distribution.process(postedChannel: randomUUID(), senderDevice: group.senderDevice, existing: nil, now: group.now)
        }
    }

    @Test("an installed state records its install time and iteration")
    func installedState() throws {
        var group = GroupFixture()
        _ = try group.send(3)
        let state = try group.installReceiver()
        #expect(state.installedAt == group.now)
        #expect(state.lastDecryptedAt == nil)
        #expect(state.nextIteration == 3)
        #expect(state.senderDevice == group.senderDevice)
        #expect(state.signingPublicKey == group.sender.signingPublicKey)
    }
}
