@testable import E2EECrypto
import E2EETestSupport
import Testing

@Suite("Sessions: stored forms of session records and DeterministicRandom")
struct SessionSerializationTests {
    /// Bob with a current state holding skipped keys and one archived state.
    static func richRecord() throws -> (bob: SessionTestDevice, alice: SessionTestDevice, late: [UInt8]) {
        var alice = try SessionTestDevice(seed: 1)
        var bob = try SessionTestDevice(seed: 2)
        try alice.startSession(with: bob)
        _ = try bob.receive(alice.send("first session", to: bob), from: alice)
        try alice.startSession(with: bob, oneTimePrekeyIndex: 1)
        let late = try alice.send("late", to: bob)
        _ = try bob.receive(alice.send("second session", to: bob), from: alice)
        return (bob, alice, late)
    }

    @Test("a record with archived states and skipped keys round-trips byte for byte and keeps working")
    func recordRoundTrip() throws {
        var (bob, alice, late) = try Self.richRecord()
        let record = try #require(bob.records[alice.deviceID])
        #expect(record.archived.count == 1)
        #expect(record.current.storedSkippedKeyCount == 1)
        let bytes = record.serialized()
        let restored = try SessionRecord(serialized: bytes)
        #expect(restored.serialized() == bytes)
        #expect(restored.archived.count == 1)
        bob.records[alice.deviceID] = restored
        #expect(try bob.receive(late, from: alice) == "late")
        #expect(try alice.receive(bob.send("reply", to: alice), from: bob) == "reply")
    }

    @Test("an initiator's state round-trips with its pending prekey header")
    func initiatorRoundTrip() throws {
        var alice = try SessionTestDevice(seed: 1)
        var bob = try SessionTestDevice(seed: 2)
        try alice.startSession(with: bob)
        let state = try #require(alice.records[bob.deviceID]).current
        let restored = try SessionState(serialized: state.serialized())
        #expect(restored.awaitingReply && restored.role == .initiator && restored.baseKey == state.baseKey)
        alice.records[bob.deviceID] = SessionRecord(current: restored)
        #expect(try bob.receive(alice.send("after restore", to: bob), from: alice) == "after restore")
    }

    @Test("malformed stored forms are typed errors")
    func refusals() throws {
        let (bob, alice, _) = try Self.richRecord()
        let record = try #require(bob.records[alice.deviceID])
        let raw = record.serialized().unprotectedCopy()
        #expect(throws: ProtocolError.unsupportedVersion(.sessionRecord, value: 2)) { try SessionRecord(serialized: [2] + raw.dropFirst()) }
        #expect(throws: ProtocolError.limitExceeded(.sessionRecord, limit: 5, actual: 6)) {
            try SessionRecord(serialized: [raw[0], 6] + raw.dropFirst(2))
        }
        #expect(throws: ProtocolError.trailingBytes(.sessionRecord, count: 1)) { try SessionRecord(serialized: raw + [0]) }
        #expect(throws: ProtocolError.self) { try SessionRecord(serialized: Array(raw.dropLast())) }
        #expect(throws: ProtocolError.truncated(.sessionRecord, expected: 1, actual: 0)) { try SessionRecord(serialized: [UInt8]()) }

        let state = record.current.serialized().unprotectedCopy()
        #expect(throws: ProtocolError.unsupportedVersion(.sessionState, value: 0)) { try SessionState(serialized: [0] + state.dropFirst()) }
        #expect(throws: ProtocolError.malformed(.sessionState, reason: "role 3")) { try SessionState(serialized: [1, 3] + state.dropFirst(2)) }
        var badCount = state
        let countOffset = state.count - 4 - 68  // one skipped key: count(u32) then 68 bytes
        badCount.replaceSubrange(countOffset..<(countOffset + 4), with: [0, 0, 0x07, 0xd1])
        #expect(throws: ProtocolError.limitExceeded(.sessionState, limit: 2000, actual: 2001)) { try SessionState(serialized: badCount) }
        var badFlag = state
        badFlag[1 + 1 + 130 + 32 + 8] = 7  // the awaiting-reply flag
        #expect(throws: ProtocolError.malformed(.sessionState, reason: "flag byte 7")) { try SessionState(serialized: badFlag) }
    }

    @Test("DeterministicRandom: HMAC-SHA256(seed, \"e2ee-drbg-v1\" || u64be(i)) blocks, independent of how requests are split")
    func deterministicRandom() throws {
        // Computed independently with Python's hmac/hashlib (see the type's documentation).
        let expected = try Hex.decode(
            "d383fbfb2e4ad2140bc4389a086030dde6a0a9c922bffc4db7d3585918e9cf79"
                + "21d495202d89dab63f6cc8fc5da362bf03e0c6d0749395c6941340ccdef33772"
                + "eeb48002223303f09be67f7c8855ab1d")
        let seed = [UInt8](repeating: 1, count: 32)
        #expect(DeterministicRandom(seed: seed).bytes(count: 80) == expected)
        let split = DeterministicRandom(seed: seed)
        let parts = [5, 27, 1, 40, 7].map { split.bytes(count: $0) }
        #expect(Array(parts.joined()) == expected)
        #expect(DeterministicRandom(seed: [UInt8](repeating: 2, count: 32)).bytes(count: 80) != expected)
    }
}
