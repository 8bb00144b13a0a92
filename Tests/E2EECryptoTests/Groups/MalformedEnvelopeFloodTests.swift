import E2EECrypto
import Testing

@Suite("T17: a flood of truncated and mutated envelopes only ever yields typed errors")
struct MalformedEnvelopeFloodTests {
    /// A small deterministic generator (xorshift64*), so a failure reproduces.
    struct Generator {
        var state: UInt64
        mutating func next(_ bound: Int) -> Int {
            state ^= state >> 12
            state ^= state << 25
            state ^= state >> 27
            return Int((state &* 0x2545_F491_4F6C_DD1D) % UInt64(bound))
        }
    }

    func validEnvelopes() throws -> [[UInt8]] {
        var group = GroupFixture()
        let devices = (0..<3).map { _ in randomUUID() }
        let pairwise = TestPairwise(devices: devices)
        let dm = try DMEnvelope.seal(payload: Array("hello".utf8), channel: group.channel, senderDevice: group.senderDevice, recipients: devices, using: SystemRandom(), pairwiseEncrypt: pairwise.encrypt)
        let skd = try SKDEnvelope.seal(group.sender.distribution, senderDevice: group.senderDevice, recipients: devices, pairwiseEncrypt: pairwise.encrypt)
        return [dm.encoded(), try group.send(1)[0].encoded(), skd.encoded()]
    }

    /// Decoding succeeds or throws a `ProtocolError`; nothing else, and nothing traps.
    func decodeIsTyped(_ bytes: [UInt8]) -> Bool {
        do {
            _ = try Envelope.decode(bytes)
            return true
        } catch is ProtocolError {
            return true
        } catch {
            return false
        }
    }

    @Test("every truncation decodes or fails typed; an SKD's always fails; a decodable group truncation fails its signature")
    func truncations() throws {
        var group = GroupFixture()
        let receiver = try group.installReceiver()
        let groupBytes = try group.send(1)[0].encoded()
        let envelopes = try validEnvelopes()
        for envelope in envelopes + [groupBytes] {
            for length in 0..<envelope.count {
                #expect(decodeIsTyped(Array(envelope.prefix(length))))
            }
        }
        // SKD envelopes have a fixed end: any truncation is refused.
        for length in 0..<envelopes[2].count {
            #expect(throws: ProtocolError.self) { try Envelope.decode(Array(envelopes[2].prefix(length))) }
        }
        // A shorter group envelope still parses (ct is variable), but cannot verify.
        var decodable = 0
        for length in 0..<groupBytes.count {
            guard case .group(let truncated)? = try? Envelope.decode(Array(groupBytes.prefix(length))) else { continue }
            decodable += 1
            #expect(throws: ProtocolError.badSignature) { try receiver.decrypt(truncated, channel: group.channel, now: group.now) }
        }
        #expect(decodable > 0)
    }

    @Test("random byte mutations, insertions and length-field corruptions decode or fail typed")
    func mutations() throws {
        var generator = Generator(state: 0x9E37_79B9_7F4A_7C15)
        var untyped = 0
        for envelope in try validEnvelopes() {
            for _ in 0..<3_000 {
                var bytes = envelope
                for _ in 0...generator.next(4) {
                    switch generator.next(3) {
                    case 0: bytes[generator.next(bytes.count)] = UInt8(generator.next(256))
                    case 1: bytes.insert(UInt8(generator.next(256)), at: generator.next(bytes.count))
                    default:
                        // Hit the count and length fields near the start with extreme values.
                        let index = min(bytes.count - 1, 60 + generator.next(40))
                        bytes[index] = [0x00, 0xFF, 0x03, 0xE9][generator.next(4)]
                    }
                }
                if !decodeIsTyped(bytes) { untyped += 1 }
            }
        }
        #expect(untyped == 0)
    }
}
