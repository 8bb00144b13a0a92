import E2EEConformance
import E2EECrypto

/// Drives Alice and Bob through one conversation and records the README's `events`. All
/// randomness comes from one seeded stream, in call order: the X3DH setup (``X3DHSetup``),
/// `EK` and Alice's first ratchet key, then per send the 64 random bytes after the plaintext's
/// `0x01` type byte and the message's 12-byte nonce, and per valid receive with a new ratchet
/// key the new ratchet private key.
/// Refused deliveries draw from a separate throwaway source, so they never shift the stream.
struct Conversation {
    let random: RecordingRandom
    let setup: X3DHSetup
    var fields = JSONObjectBuilder()
    var devices: [String: PairwiseDevice] = [:]
    var sends: [[UInt8]] = []
    var plaintexts: [[UInt8]] = []
    var events: [VectorJSON] = []

    init(seedLabel: String, opkID: UInt32) throws {
        random = RecordingRandom(seedLabel: seedLabel)
        setup = try X3DHSetup(random: random, opkID: opkID)
        let (session, ephemeral, ratchet) = try setup.initiate(random: random)
        setup.inputFields(into: &fields)
        fields.setHex("ephemeralPrivate", ephemeral)
        fields.setHex("aliceInitialRatchetPrivate", ratchet)
        devices["alice"] = PairwiseDevice(
            identity: setup.alice, record: SessionRecord.installing(session.state, into: nil), signedPrekeys: [], oneTimePrekeys: [],
            pinned: session.identityToPin, listed: nil, now: X3DHSetup.time)
        devices["bob"] = PairwiseDevice(
            identity: setup.bob, record: nil, signedPrekeys: [setup.signedPrekey], oneTimePrekeys: setup.oneTimePrekey.map { [$0] } ?? [],
            pinned: nil, listed: setup.alice.publicIdentity, now: X3DHSetup.time)
    }

    func device(_ party: String) throws -> PairwiseDevice {
        guard let device = devices[party] else { throw GeneratorError("no party \(party)") }
        return device
    }

    @discardableResult
    mutating func send(_ party: String) throws -> Int {
        let index = sends.count
        let plaintext = [0x01] + random.draw(64)
        _ = random.take()
        let (message, next) = try device(party).sending(plaintext, using: random)
        let nonce = random.take()
        guard nonce.count == MessageHeader.nonceLength else { throw GeneratorError("send \(index) drew \(nonce.count) bytes") }
        devices[party] = next
        sends.append(message)
        plaintexts.append(plaintext)
        events.append(.object([("event", .string("send")), ("party", .string(party)), ("index", .int(Int64(index))),
                               ("plaintext", .string(hexString(plaintext))), ("nonce", .string(hexString(nonce))),
                               ("message", .string(hexString(message)))]))
        return index
    }

    mutating func receive(_ party: String, _ index: Int, step: Bool) throws {
        _ = random.take()
        let (plaintext, next) = try device(party).receiving(sends[index], using: random)
        let drawn = random.take()
        guard drawn.count == (step ? 32 : 0) else { throw GeneratorError("receive \(index) by \(party) drew \(drawn.count) bytes") }
        guard plaintext == plaintexts[index] else { throw GeneratorError("receive \(index) by \(party): wrong plaintext") }
        devices[party] = next
        events.append(.object([("event", .string("receive")), ("party", .string(party)), ("index", .int(Int64(index))),
                               ("newRatchetPrivate", .string(hexString(drawn))), ("result", .string("valid")),
                               ("plaintext", .string(hexString(plaintext)))]))
    }

    mutating func reject(_ party: String, _ index: Int, _ expected: String, message altered: [UInt8]? = nil) throws {
        let device = try device(party)
        let failure = try refusal(expected, "receive \(index) by \(party)") {
            _ = try device.receiving(altered ?? sends[index], using: DeterministicRandom(seed: Array("e2ee-vectors/refused".utf8)))
        }
        var event: [(String, VectorJSON)] = [("event", .string("receive")), ("party", .string(party)), ("index", .int(Int64(index)))]
        if let altered { event.append(("message", .string(hexString(altered)))) }
        event += [("newRatchetPrivate", .string("")), ("result", .string("invalid")), ("failure", .string(failure))]
        events.append(.object(event))
    }

    func test(_ comment: String) -> VectorTest {
        var fields = self.fields
        fields.set("events", .array(events))
        return VectorTest(groupType: "ConversationTest", comment: comment, fields: fields)
    }
}

/// `double_ratchet_test.json`: two conversations. Seeds `"e2ee-vectors/double-ratchet/1"`
/// (with OPK 11) and `"e2ee-vectors/double-ratchet/2"` (without OPK).
enum RatchetVectors {
    /// A message (normal, or the normal part of a prekey message) with header fields replaced.
    static func withHeader(_ message: [UInt8], previous: UInt32? = nil, number: UInt32? = nil, ratchet: [UInt8]? = nil) -> [UInt8] {
        let start = message[0] == 0x02 ? 107 : 1
        var out = message
        if let ratchet { out.replaceSubrange(start..<(start + 32), with: ratchet) }
        if let previous { out.replaceSubrange((start + 32)..<(start + 36), with: WireWriter.bytes(previous)) }
        if let number { out.replaceSubrange((start + 36)..<(start + 40), with: WireWriter.bytes(number)) }
        return out
    }

    static func build() throws -> VectorFileBuilder {
        var file = VectorFileBuilder(fileName: "double_ratchet_test.json", algorithm: "E2EE-DOUBLE-RATCHET", header: [
            "Double Ratchet conversations (PROTOCOL.md §2-§3) started by X3DH from fixed keys.",
            "Each test is one conversation: events in order; a refused receive leaves the receiver unchanged.",
        ])
        var c = try Conversation(seedLabel: "e2ee-vectors/double-ratchet/1", opkID: 11)
        for _ in 0..<3 { try c.send("alice") }                       // 0, 1, 2: prekey form
        try c.receive("bob", 1, step: true)                            // out of order: skips 0
        try c.receive("bob", 0, step: false)                           // from the skipped keys
        try c.reject("bob", 0, "tooOld")                               // duplicate delivery: its key is used
        try c.reject("bob", 2, "badTag", message: c.sends[2].flipping(c.sends[2].count - 1))
        try c.reject("bob", 2, "truncated", message: Array(c.sends[2][0..<56]))
        try c.reject("bob", 2, "truncated", message: Array(c.sends[2][0..<120]))
        try c.reject("bob", 2, "unsupportedVersion", message: [0x07] + c.sends[2][1...])
        let mallory = IdentityKeyPair(using: DeterministicRandom(seed: Array("e2ee-vectors/mallory".utf8))).publicIdentity.bytes
        try c.reject("bob", 2, "identityMismatch", message: [c.sends[2][0]] + mallory + c.sends[2][66...])
        try c.receive("bob", 2, step: false)
        try c.send("bob")                                              // 3
        try c.send("bob")                                              // 4
        try c.reject("alice", 4, "badTag", message: withHeader(c.sends[4], previous: 9))
        try c.reject("alice", 4, "invalidKey", message: withHeader(c.sends[4], ratchet: X3DHVectors.order8Point))
        try c.receive("alice", 4, step: true)                          // skips 3
        try c.receive("alice", 3, step: false)
        for _ in 0..<3 { try c.send("alice") }                         // 5, 6, 7: normal form now
        guard c.sends[5][0] == 0x01 else { throw GeneratorError("send 5 is not a normal message") }
        try c.receive("bob", 6, step: true)
        try c.receive("bob", 5, step: false)
        try c.send("bob")                                              // 8
        try c.receive("alice", 8, step: true)
        try c.send("alice")                                            // 9: new chain, PN = 3
        try c.receive("bob", 9, step: true)                            // skips 7 on the old chain
        try c.reject("bob", 9, "tooFarAhead", message: withHeader(c.sends[9], number: 1500))
        try c.receive("bob", 7, step: false)                           // across chains
        try c.reject("bob", 0, "badTag")                               // an old prekey message again
        try c.send("bob")                                              // 10
        try c.receive("alice", 10, step: true)
        try c.send("alice")                                            // 11
        try c.send("alice")                                            // 12
        try c.reject("bob", 11, "badTag", message: withHeader(c.sends[11], number: 2))
        try c.receive("bob", 12, step: true)
        try c.receive("bob", 11, step: false)
        file.add(c.test("four DH turns each way; skips within and across chains; duplicate (tooOld), altered ciphertext and "
                        + "header (badTag), truncated, unknown type byte, another identity blob, low-order ratchet key, "
                        + "skip above 1000, a replayed old prekey message"))

        var d = try Conversation(seedLabel: "e2ee-vectors/double-ratchet/2", opkID: 0)
        for _ in 0..<5 { try d.send("alice") }                         // 0..4
        try d.reject("bob", 4, "tooFarAhead", message: withHeader(d.sends[4], number: 1001))
        try d.receive("bob", 4, step: true)                            // skips 0..3
        let otherEK = X25519.PrivateKey(using: DeterministicRandom(seed: Array("e2ee-vectors/other-ek".utf8))).publicKey.rawRepresentation
        try d.reject("bob", 0, "badTag", message: Array(d.sends[0][0..<66]) + otherEK + d.sends[0][98...])
        try d.receive("bob", 2, step: false)
        try d.receive("bob", 0, step: false)
        try d.send("bob")                                              // 5
        try d.receive("alice", 5, step: true)
        try d.receive("bob", 3, step: false)
        try d.receive("bob", 1, step: false)
        try d.send("alice")                                            // 6
        try d.receive("bob", 6, step: true)
        try d.reject("bob", 6, "tooOld")
        file.add(d.test("no one-time prekey; the first message received is the last of five; skip of 1001 refused; "
                        + "a prekey message with a fresh EK_A refused; late prekey messages after a reply"))
        return file
    }
}
