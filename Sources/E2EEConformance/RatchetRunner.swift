import E2EECrypto

/// `E2EE-DOUBLE-RATCHET` (docs/spec/protocol.md §3): a conversation replayed event by event between Alice
/// (who initiates from the file's keys) and Bob. Every send, under the file's `nonce`, must
/// produce the file's message in the right form; every valid receive must open to the send's plaintext drawing exactly the
/// file's new ratchet key; every invalid receive must be refused with its `failure`. A refusal
/// cannot change the device (``PairwiseDevice`` is a value whose `receiving` returns a new one
/// only on success, over immutable key bytes), so the replay goes on from the state before it:
/// a later event that must open proves the refused message did not advance the session.
struct RatchetRunner: AlgorithmRunner {
    let algorithms: Set<String> = ["E2EE-DOUBLE-RATCHET"]

    func attempt(_ vector: VectorCase) throws -> Attempt {
        let alice = try ProtocolKeys.identity(vector, dh: "initiatorIdentityPrivate", seed: "initiatorSigningSeed")
        let bob = try ProtocolKeys.identity(vector, dh: "responderIdentityPrivate", seed: "responderSigningSeed")
        let initialRandom = try vector.hex("ephemeralPrivate") + vector.hex("aliceInitialRatchetPrivate")
        let events = try vector.list("events")
        return refusing {
            var devices = try Self.devices(vector, alice: alice, bob: bob, random: initialRandom)
            var sends: [Int: (message: [UInt8], plaintext: [UInt8])] = [:]
            for (position, event) in events.enumerated() {
                let what = "event \(position)"
                let party = try event.text("party")
                guard let device = devices[party] else { throw VectorFieldError(field: "party (\(what))") }
                guard let index = event["index"]?.int else { throw VectorFieldError(field: "index (\(what))") }
                if try event.text("event") == "send" {
                    let plaintext = try event.hex("plaintext")
                    let nonce = ScriptedRandom(try event.hex("nonce"))
                    let (message, next) = try device.sending(plaintext, using: nonce)
                    try check(nonce.requested == MessageHeader.nonceLength, "\(what): drew \(nonce.requested) random bytes, not a nonce")
                    try check(message == event.hex("message"), "\(what): message differs")
                    // Prekey form while Alice has decrypted nothing from Bob, else normal form.
                    let expectedType: UInt8 = party == "alice" && device.record?.current.awaitingReply == true ? 0x02 : 0x01
                    try check(message.first == expectedType, "\(what): wrong message form")
                    devices[party] = next
                    sends[index] = (message, plaintext)
                    continue
                }
                let bytes: [UInt8]
                if event["message"] != nil {
                    bytes = try event.hex("message")
                } else if let sent = sends[index] {
                    bytes = sent.message
                } else {
                    throw VectorFieldError(field: "index (\(what): no send \(index))")
                }
                let newRatchet = try event.hex("newRatchetPrivate")
                let scripted = ScriptedRandom(newRatchet)
                if try event.text("result") == "valid" {
                    let (plaintext, next) = try device.receiving(bytes, using: scripted)
                    try check(plaintext == event.hex("plaintext"), "\(what): plaintext differs")
                    try check(plaintext == sends[index]?.plaintext, "\(what): not the plaintext of send \(index)")
                    try check(scripted.requested == newRatchet.count, "\(what): drew \(scripted.requested) bytes, the vector has \(newRatchet.count)")
                    devices[party] = next
                } else {
                    if let problem = refusalProblem(expected: try event.text("failure"), { _ = try device.receiving(bytes, using: scripted) }) {
                        throw Mismatch(detail: "\(what): \(problem)")
                    }
                }
            }
            return .matched
        }
    }

    /// Alice with the session she initiates to Bob's bundle (drawing `random`), and Bob with his
    /// prekeys and no session yet.
    private static func devices(_ vector: VectorCase, alice: IdentityKeyPair, bob: IdentityKeyPair,
                                random bytes: [UInt8]) throws -> [String: PairwiseDevice] {
        let spk = try ProtocolKeys.signedPrekey(vector, bob: bob)
        let opk = try ProtocolKeys.oneTimePrekey(vector)
        let bundle = try ProtocolKeys.bundle(identity: bob.publicIdentity.bytes, signedPrekey: spk.published.bytes,
                                             signature: spk.signature, oneTimePrekey: opk?.published.bytes ?? [])
        let random = ScriptedRandom(bytes)
        let session = try X3DH.initiate(localIdentity: alice, bundle: bundle, pinnedIdentity: nil, using: random)
        try check(random.requested == 64, "the initiator drew \(random.requested) random bytes, not 64")
        return [
            "alice": PairwiseDevice(identity: alice, record: SessionRecord.installing(session.state, into: nil), signedPrekeys: [],
                                    oneTimePrekeys: [], pinned: session.identityToPin, listed: nil, now: 1_764_000_000),
            "bob": PairwiseDevice(identity: bob, record: nil, signedPrekeys: [spk], oneTimePrekeys: opk.map { [$0] } ?? [],
                                  pinned: nil, listed: alice.publicIdentity, now: 1_764_000_000),
        ]
    }
}
