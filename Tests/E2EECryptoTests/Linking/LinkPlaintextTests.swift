@testable import E2EECrypto
import Testing

/// Link plaintexts (docs/spec/protocol.md §10.22): exact sizes, round trips, and every typed
/// refusal of the strict parser.
@Suite("Linking: link plaintexts")
struct LinkPlaintextTests {
    let fixtures = LinkTestFixtures()

    func decode(_ bytes: [UInt8]) throws -> LinkPlaintext { try LinkPlaintext.decode(SecretBytes(copying: bytes)) }

    @Test("each kind encodes to its table size, starts 0x03 || kind, and parses back equal")
    func sizesAndRoundTrips() throws {
        let sizes: [LinkPlaintext.Kind: Int] = [.request: 50, .accept: 50, .reveal: 50, .grant: 154, .cancel: 19, .recert: 170,
                                               .manifest: 68, .ack: 22]
        let all = try fixtures.everyKind()
        #expect(all.map(\.kind) == LinkPlaintext.Kind.allCases)
        for plaintext in all {
            let bytes = try plaintext.encoded().unprotectedCopy()
            #expect(Array(bytes[0..<2]) == [0x03, plaintext.kind.rawValue])
            if let size = sizes[plaintext.kind] {
                #expect(bytes.count == size, "\(plaintext.kind)")
                #expect(plaintext.kind.plaintextLength == size)
            }
            #expect(try decode(bytes) == plaintext, "\(plaintext.kind)")
        }
    }

    @Test("one byte more or less than a kind's size is refused as trailing or truncated")
    func wrongLengths() throws {
        for plaintext in try fixtures.everyKind() where plaintext.kind != .chunk {
            let bytes = try plaintext.encoded().unprotectedCopy()
            #expect(throws: ProtocolError.trailingBytes(.linkPlaintext, count: 1)) { try decode(bytes + [0]) }
            #expect(throws: ProtocolError.truncated(.linkPlaintext, expected: bytes.count, actual: bytes.count - 1)) {
                try decode(Array(bytes.dropLast()))
            }
        }
        #expect(throws: ProtocolError.truncated(.linkPlaintext, expected: 22, actual: 21)) { try decode([0x03, 0x08] + [UInt8](repeating: 1, count: 19)) }
    }

    @Test("an unknown kind, another type byte, and an empty plaintext are refused")
    func unknownKindAndType() throws {
        for kind: UInt8 in [0x00, 0x0a, 0xff] {
            #expect(throws: ProtocolError.unsupportedVersion(.linkPlaintext, value: kind)) { try decode([0x03, kind] + [UInt8](repeating: 1, count: 48)) }
        }
        #expect(throws: ProtocolError.unsupportedVersion(.linkPlaintext, value: 0x01)) { try decode([0x01, 0x01] + [UInt8](repeating: 1, count: 48)) }
        #expect(throws: ProtocolError.truncated(.linkPlaintext, expected: 1, actual: 0)) { try decode([]) }
    }

    @Test("a zero transfer id is refused in a grant, manifest, chunk and ack, on both encode and decode")
    func zeroTransferID() throws {
        let zero = LinkTestFixtures.zeroID
        #expect(throws: ProtocolError.malformed(.linkPlaintext, reason: "zero transfer id")) {
            try LinkGrant(requestID: fixtures.request, certificate: fixtures.certificate(), transferID: zero, transferChannelID: fixtures.channel)
        }
        #expect(throws: ProtocolError.malformed(.linkPlaintext, reason: "zero transfer id")) {
            try LinkPlaintext.ack(transferID: zero, nextIndex: 0).encoded()
        }
        for plaintext in try fixtures.everyKind() {
            var bytes = try plaintext.encoded().unprotectedCopy()
            let offset: Int
            switch plaintext.kind {
            case .grant: offset = 2 + 16 + 104
            case .manifest, .chunk, .ack: offset = 2
            default: continue
            }
            bytes.replaceSubrange(offset..<(offset + 16), with: [UInt8](repeating: 0, count: 16))
            #expect(throws: ProtocolError.malformed(.linkPlaintext, reason: "zero transfer id"), "\(plaintext.kind)") { try decode(bytes) }
        }
    }

    @Test("cancel reasons 1…6 parse to their cases; 0, 7 and 255 are refused")
    func cancelReasons() throws {
        let head: [UInt8] = [0x03, 0x05] + fixtures.request.bytes
        for reason in LinkCancelReason.allCases {
            #expect(try decode(head + [reason.rawValue]) == .cancel(id: fixtures.request, reason: reason))
        }
        #expect(LinkCancelReason.allCases.map(\.rawValue) == [1, 2, 3, 4, 5, 6])
        for byte: UInt8 in [0, 7, 255] {
            #expect(throws: ProtocolError.malformed(.linkPlaintext, reason: "cancel reason \(byte)")) { try decode(head + [byte]) }
        }
    }

    @Test("the certificate in a grant or recert is read by DeviceCertificate: zero, bad key and bad epoch are refused")
    func certificates() throws {
        let all = try fixtures.everyKind()
        for plaintext in [all[3], all[5]] {
            let bytes = try plaintext.encoded().unprotectedCopy()
            let start = plaintext.kind == .grant ? 18 : 2
            var zero = bytes
            zero.replaceSubrange(start..<(start + 104), with: [UInt8](repeating: 0, count: 104))
            #expect(throws: ProtocolError.malformed(.linkPlaintext, reason: "the zero certificate")) { try decode(zero) }
            var smallOrder = bytes
            smallOrder.replaceSubrange(start..<(start + 32), with: [1] + [UInt8](repeating: 0, count: 31))
            #expect(throws: ProtocolError.invalidKey(.certificate)) { try decode(smallOrder) }
            var epochZero = bytes
            epochZero.replaceSubrange((start + 32)..<(start + 36), with: [0, 0, 0, 0])
            #expect(throws: ProtocolError.self) { try decode(epochZero) }
        }
        #expect(throws: ProtocolError.malformed(.linkPlaintext, reason: "the zero certificate")) {
            try LinkPlaintext.recert(certificate: .zero, primarySignature: [UInt8](repeating: 0, count: 64)).encoded()
        }
    }

    @Test("manifest: an unknown phase, a flag byte of 2, or a trust count above the record count is refused")
    func manifestFields() throws {
        let bytes = try LinkPlaintext.manifest(fixtures.manifest()).encoded().unprotectedCopy()
        var phase = bytes
        phase[22] = 3
        #expect(throws: ProtocolError.malformed(.linkPlaintext, reason: "phase 3")) { try decode(phase) }
        var flag = bytes
        flag[35] = 2
        #expect(throws: ProtocolError.malformed(.linkPlaintext, reason: "flag byte 2")) { try decode(flag) }
        var counts = bytes
        counts[26] = 9
        #expect(throws: ProtocolError.self) { try decode(counts) }
    }

    @Test("a chunk of exactly 69,000 bytes parses; one byte more is refused before its records are read, on both sides")
    func chunkBound() throws {
        let head: [UInt8] = [0x03, 0x08] + fixtures.transfer.bytes + [0, 0, 0, 1]
        let largest = head + [UInt8](repeating: 0xee, count: ProtocolLimits.maxLinkChunkPlaintextBytes - 22)
        #expect(try decode(largest).kind == .chunk)
        #expect(throws: ProtocolError.limitExceeded(.linkPlaintext, limit: 69_000, actual: 69_001)) { try decode(largest + [0]) }
        #expect(throws: ProtocolError.limitExceeded(.linkPlaintext, limit: 69_000, actual: 69_001)) {
            try LinkPlaintext.chunk(transferID: fixtures.transfer, index: 1, records: SecretBytes(copying: [UInt8](repeating: 0, count: 68_979))).encoded()
        }
    }

    @Test("a nonce, commitment or signature of the wrong length is refused when encoding")
    func encodeLengths() throws {
        #expect(throws: ProtocolError.self) { try LinkPlaintext.request(requestID: fixtures.request, commit: [1, 2]).encoded() }
        #expect(throws: ProtocolError.self) { try LinkPlaintext.accept(requestID: fixtures.request, nonce: SecretBytes(copying: [1])).encoded() }
        #expect(throws: ProtocolError.self) { try LinkPlaintext.recert(certificate: fixtures.certificate(), primarySignature: [1]).encoded() }
    }

    @Test("descriptions never show nonces or records")
    func redaction() throws {
        for plaintext in try fixtures.everyKind() {
            let text = String(describing: plaintext)
            #expect(!text.contains("a1a1") && !text.contains("b2b2") && !text.contains("161,"))
        }
        #expect(String(describing: LinkPlaintext.accept(requestID: fixtures.request, nonce: fixtures.nonceP)).contains("<redacted>"))
    }
}
