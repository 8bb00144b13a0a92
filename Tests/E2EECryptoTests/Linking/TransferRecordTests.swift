@testable import E2EECrypto
import Testing

/// Transfer records (docs/spec/protocol.md §11.2): every kind and sub-kind round trips, the
/// decoder reads whole records only, `len` is bounded before the body is read, and the digest
/// is SHA-256 over the whole records in order.
@Suite("Linking: transfer records")
struct TransferRecordTests {
    let fixtures = LinkTestFixtures()

    func every() throws -> [TransferRecord] {
        let f = fixtures
        let blob = f.newIdentity.publicIdentity
        let certificate = try f.certificate()
        return [
            .trust(.ownDevice(deviceID: f.newDevice, identity: blob, certificate: certificate)),
            .trust(.ownDevice(deviceID: f.newDevice, identity: blob, certificate: .zero)),
            .trust(.channel(channelID: f.channel, kind: .group, standing: .declined)),
            .trust(.dmParticipant(channelID: f.channel, userID: f.user)),
            .trust(.approvedMember(channelID: f.channel, userID: f.user)),
            .trust(.hold(channelID: nil, userID: f.user, deviceID: f.newDevice, state: .declined)),
            .trust(.hold(channelID: f.channel, userID: f.user, deviceID: nil, state: .held)),
            .trust(.contactKey(ContactKeyRecord(userID: f.user, userKey: f.userKey.publicKey, state: .verified, userConflicted: true,
                                                seenUntil: 1_790_000_000, seenAt: 1_780_000_000, highestEpoch: 3, deviceID: f.newDevice,
                                                identity: blob, certificate: certificate))),
            .trust(.deviceWithoutCertificate(userID: f.user, deviceID: f.primary, identity: blob, until: 1_790_000_000)),
            .trust(.deviceWithoutCertificate(userID: f.user, deviceID: f.primary, identity: blob, until: nil)),
            .message(try MessageRecord(channelID: f.channel, messageID: f.request, senderID: f.user, senderDeviceID: f.primary,
                                       createdAt: 1_780_000_000_123_456, edited: true, payload: SecretBytes(copying: Array("{\"v\":1}".utf8)))),
            .deleted(channelID: f.channel, messageID: f.request),
        ]
    }

    @Test("every kind and sub-kind has its head, exact body length, and parses back equal")
    func roundTrips() throws {
        let bodies: [Int] = [186, 186, 19, 33, 33, 50, 50, 248, 102, 102, 80, 32]
        for (record, body) in zip(try every(), bodies) {
            let bytes = record.encoded().unprotectedCopy()
            #expect(bytes[0] == record.kind.rawValue && bytes[1] == 1)
            #expect(Array(bytes[2..<6]) == WireWriter.bytesOf(UInt32(body)) && bytes.count == 6 + body, "\(record.kind)")
            #expect(try TransferRecord.decode(SecretBytes(copying: bytes)) == record)
        }
        let holdAll = try every()[5].encoded().unprotectedCopy()
        #expect(Array(holdAll[7..<23]) == [UInt8](repeating: 0, count: 16))
    }

    @Test("a chunk of several records decodes them in order; a record cut at the chunk's end is refused")
    func decoderOverAChunk() throws {
        let records = try every()
        let chunk = records.map { $0.encoded().unprotectedCopy() }.reduce([], +)
        var decoder = TransferRecordDecoder(records: SecretBytes(copying: chunk))
        var read: [TransferRecord] = []
        while let record = try decoder.next() { read.append(record) }
        #expect(read == records && decoder.isAtEnd)
        var empty = TransferRecordDecoder(records: SecretBytes(copying: []))
        #expect(try empty.next() == nil)
        var cut = TransferRecordDecoder(records: SecretBytes(copying: Array(chunk.dropLast())))
        #expect(throws: ProtocolError.self) { while try cut.next() != nil {} }
        var headOnly = TransferRecordDecoder(records: SecretBytes(copying: chunk + [0x01, 0x01, 0x00]))
        #expect(throws: ProtocolError.self) { while try headOnly.next() != nil {} }
    }

    @Test("len above 65,609 is refused before the body is read, even when the bytes are not there")
    func lengthBound() throws {
        #expect(throws: ProtocolError.limitExceeded(.transferRecord, limit: 65_609, actual: 65_610)) {
            try TransferRecord.decode(SecretBytes(copying: [0x02, 0x01, 0x00, 0x01, 0x00, 0x4a]))
        }
        #expect(throws: ProtocolError.limitExceeded(.transferRecord, limit: 65_609, actual: Int(UInt32.max))) {
            try TransferRecord.decode(SecretBytes(copying: [0x01, 0x01, 0xff, 0xff, 0xff, 0xff]))
        }
        let largest = try MessageRecord(channelID: fixtures.channel, messageID: fixtures.request, senderID: fixtures.user,
                                        senderDeviceID: fixtures.primary, createdAt: 0, edited: false,
                                        payload: SecretBytes(copying: [UInt8](repeating: 0x61, count: 65_536)))
        let bytes = TransferRecord.message(largest).encoded()
        #expect(bytes.count == 6 + 65_609)
        #expect(try TransferRecord.decode(bytes) == .message(largest))
        #expect(throws: ProtocolError.limitExceeded(.transferRecord, limit: 65_536, actual: 65_537)) {
            try MessageRecord(channelID: fixtures.channel, messageID: fixtures.request, senderID: fixtures.user, senderDeviceID: fixtures.primary,
                              createdAt: 0, edited: false, payload: SecretBytes(copying: [UInt8](repeating: 0x61, count: 65_537)))
        }
    }

    @Test("unknown kind, version, sub-kind (0x07 reserved included) and enumerated values are refused")
    func refusals() throws {
        func decode(_ bytes: [UInt8]) throws -> TransferRecord { try TransferRecord.decode(SecretBytes(copying: bytes)) }
        let deleted = try every()[11].encoded().unprotectedCopy()
        #expect(throws: ProtocolError.unsupportedVersion(.transferRecord, value: 0x04)) { try decode([0x04] + deleted[1...]) }
        #expect(throws: ProtocolError.unsupportedVersion(.transferRecord, value: 0x02)) { try decode([0x03, 0x02] + deleted[2...]) }
        let channel = try every()[2].encoded().unprotectedCopy()
        for subKind: UInt8 in [0x00, 0x07, 0x09] {
            var bytes = channel
            bytes[6] = subKind
            #expect(throws: ProtocolError.unsupportedVersion(.transferRecord, value: subKind)) { try decode(bytes) }
        }
        var kind = channel
        kind[23] = 3
        #expect(throws: ProtocolError.malformed(.transferRecord, reason: "channel kind 3")) { try decode(kind) }
        var standing = channel
        standing[24] = 6
        #expect(throws: ProtocolError.malformed(.transferRecord, reason: "channel standing 6")) { try decode(standing) }
        var message = try every()[10].encoded().unprotectedCopy()
        message[6 + 72] = 0x03
        #expect(throws: ProtocolError.malformed(.transferRecord, reason: "message flags 0x3")) { try decode(message) }
        var conflicted = try every()[7].encoded().unprotectedCopy()
        conflicted[6 + 1 + 16 + 32 + 1] = 2
        #expect(throws: ProtocolError.malformed(.transferRecord, reason: "user_conflicted 2")) { try decode(conflicted) }
        var state = try every()[7].encoded().unprotectedCopy()
        state[6 + 1 + 16 + 32] = 6
        #expect(throws: ProtocolError.malformed(.transferRecord, reason: "contact key state 6")) { try decode(state) }
    }

    @Test("a body of the wrong length for its sub-kind is refused as truncated or trailing")
    func bodyLengths() throws {
        func decode(_ bytes: [UInt8]) throws -> TransferRecord { try TransferRecord.decode(SecretBytes(copying: bytes)) }
        let channel = try every()[2].encoded().unprotectedCopy()
        #expect(throws: ProtocolError.trailingBytes(.transferRecord, count: 1)) { try decode([0x01, 0x01, 0, 0, 0, 20] + channel[6...] + [0]) }
        #expect(throws: ProtocolError.truncated(.transferRecord, expected: 19, actual: 18)) { try decode([0x01, 0x01, 0, 0, 0, 18] + channel[6..<24]) }
        #expect(throws: ProtocolError.truncated(.transferRecord, expected: 73, actual: 72)) {
            try decode([0x02, 0x01, 0, 0, 0, 72] + [UInt8](repeating: 1, count: 72))
        }
        let deleted = try every()[11].encoded().unprotectedCopy()
        #expect(throws: ProtocolError.trailingBytes(.transferRecord, count: 1)) { try decode([0x03, 0x01, 0, 0, 0, 33] + deleted[6...] + [0]) }
        #expect(throws: ProtocolError.trailingBytes(.transferRecord, count: 1)) { try decode(deleted + [0]) }
    }

    @Test("the digest is SHA-256 over the whole records in order, the same whether fed by the decoder or by records")
    func digest() throws {
        let records = try every()
        let whole = records.map { $0.encoded().unprotectedCopy() }
        var decoder = TransferRecordDecoder(records: SecretBytes(copying: whole.reduce([], +)))
        var fed = TransferDigest()
        while try decoder.next(updating: &fed) != nil {}
        var direct = TransferDigest()
        for record in records { direct.add(record) }
        #expect(fed.digest == SHA256.hash(whole.reduce([], +)))
        #expect(direct.digest == fed.digest && fed.recordCount == records.count && fed.byteCount == whole.reduce(0) { $0 + $1.count })
        var failing = TransferRecordDecoder(records: SecretBytes(copying: whole[0] + [0x04, 0x01, 0, 0, 0, 0]))
        var partial = TransferDigest()
        _ = try failing.next(updating: &partial)
        let before = partial.digest
        #expect(throws: ProtocolError.unsupportedVersion(.transferRecord, value: 0x04)) { try failing.next(updating: &partial) }
        #expect(partial.digest == before && partial.recordCount == 1)
        var reordered = TransferDigest()
        for record in records.reversed() { reordered.add(record) }
        #expect(reordered.digest != fed.digest)
        #expect(TransferDigest().digest == SHA256.hash([UInt8]()))
    }
}
