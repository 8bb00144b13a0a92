import E2EECrypto

/// A sending device and a receiving device with an established DM session and an installed
/// sender key, built deterministically from a fixed seed, plus real envelopes from the sender:
/// some already received (replays), some not yet (the next ones in each chain, one skipping an
/// iteration, a second X3DH session with an unused one-time prekey).
public struct ReceivingScenario: Sendable {
    /// One envelope the sender really produced.
    public struct Original: Sendable {
        /// The envelope bytes.
        public let bytes: [UInt8]
        /// The channel it was posted in.
        public let channel: WireUUID
        /// What the receiver accepts it as.
        public let accepted: ReceivingDevice.Accepted
    }

    /// The receiver, in its state after the setup.
    public let device: ReceivingDevice
    /// The DM channel.
    public let dmChannel: WireUUID
    /// The group channel.
    public let groupChannel: WireUUID
    /// The sender's envelopes, received or not.
    public let originals: [Original]
    /// The sender's sending state for the group, after the last group message.
    let sending: SenderKeySendingState

    /// Builds the scenario.
    /// - Throws: only if the protocol code refuses its own output (a bug the fuzzer reports).
    public init() throws {
        let random = DeterministicRandom(seed: [UInt8](repeating: 0x5A, count: 32))
        let now: Int64 = 1_800_000_000
        let alice = IdentityKeyPair(using: random)
        let aliceDevice = try WireUUID(bytes: random.bytes(count: 16))
        let bobIdentity = IdentityKeyPair(using: random)
        let bobDevice = try WireUUID(bytes: random.bytes(count: 16))
        let signedPrekey = try SignedPrekey.generate(identity: bobIdentity, retainedIDs: [], createdAt: now, using: random)
        let oneTimePrekeys = try OneTimePrekey.generate(count: 3, nextID: 1, using: random)
        var bob = ReceivingDevice(identity: bobIdentity, deviceID: bobDevice, signedPrekeys: [signedPrekey],
                                  oneTimePrekeys: oneTimePrekeys, now: now)
        bob.listed[aliceDevice] = alice.publicIdentity
        let dmChannel = try WireUUID(bytes: random.bytes(count: 16))
        let groupChannel = try WireUUID(bytes: random.bytes(count: 16))

        func bundle(_ oneTimePrekey: Int) throws -> PrekeyBundle {
            try PrekeyBundle(deviceID: bobDevice.text, identityKey: bobIdentity.publicIdentity.base64,
                             signedPreKey: signedPrekey.published.base64, signedPreKeySignature: signedPrekey.signatureBase64,
                             oneTimePreKey: oneTimePrekeys[oneTimePrekey].published.base64)
        }
        func payload(_ text: String) throws -> SecretBytes {
            try MessagePayload(id: WireUUID(bytes: random.bytes(count: 16)), timestamp: 1_800_000_000_000, text: text).encodedJSON()
        }
        var aliceRecord = SessionRecord.installing(
            try X3DH.initiate(localIdentity: alice, bundle: bundle(0), pinnedIdentity: nil, using: random).state, into: nil)
        func dm(_ text: String, record: inout SessionRecord) throws -> Original {
            let envelope = try DMEnvelope.seal(payload: payload(text), channel: dmChannel, senderDevice: aliceDevice,
                                               recipients: [bobDevice], using: random) { _, plaintext in
                let encryption = try record.encrypt(plaintext)
                record = encryption.record
                return encryption.message
            }
            return Original(bytes: Envelope.dm(envelope).encoded(), channel: dmChannel,
                            accepted: .message(text: text, ciphertext: envelope.payloadCiphertext))
        }
        var originals: [Original] = []
        // 1. The first DM (a prekey message), received: Bob's session exists from here on.
        let first = try dm("hello bob", record: &aliceRecord)
        _ = try bob.receive(first.bytes, channel: dmChannel)
        originals.append(first)
        // Bob replies, so Alice's next messages are normal messages.
        guard let bobRecord = bob.sessions[aliceDevice] else { throw ProtocolError.unknownSession }
        let replyEncryption = try bobRecord.encrypt(try payload("hi alice"))
        guard case .normal(let reply) = try PairwiseMessage(bytes: replyEncryption.message) else { throw ProtocolError.unknownSession }
        bob.sessions[aliceDevice] = replyEncryption.record
        aliceRecord = try aliceRecord.decrypt(reply, using: random).effects.record
        // 2. A normal DM, received; 3. and 4. two more, not yet received.
        let second = try dm("second", record: &aliceRecord)
        _ = try bob.receive(second.bytes, channel: dmChannel)
        originals.append(second)
        originals.append(try dm("third, not yet received", record: &aliceRecord))
        originals.append(try dm("fourth, skips the third", record: &aliceRecord))
        // 5. A new session from a second X3DH with an unused one-time prekey, not yet received.
        var secondSession = SessionRecord.installing(
            try X3DH.initiate(localIdentity: alice, bundle: bundle(1), pinnedIdentity: nil, using: random).state, into: nil)
        originals.append(try dm("from a new session", record: &secondSession))

        // 6. Alice's sender key for the group, distributed and installed.
        var sending = SenderKeySendingState.generate(channel: groupChannel, retainedKeyIDs: [], using: random)
        let skd = try SKDEnvelope.seal(sending.distribution, senderDevice: aliceDevice, recipients: [bobDevice]) { _, plaintext in
            let encryption = try aliceRecord.encrypt(plaintext)
            aliceRecord = encryption.record
            return encryption.message
        }
        let skdOriginal = Original(bytes: Envelope.senderKeyDistribution(skd).encoded(), channel: groupChannel,
                                   accepted: .senderKeyDistribution(plaintext: PairwisePlaintext.senderKeyDistribution(sending.distribution).encoded().unprotectedCopy()))
        _ = try bob.receive(skdOriginal.bytes, channel: groupChannel)
        originals.append(skdOriginal)
        // 7. Group messages: one received, the next, and one skipping an iteration.
        func group(_ text: String) throws -> Original {
            let (envelope, next) = try sending.encrypt(payload(text), senderDevice: aliceDevice)
            sending = next
            return Original(bytes: Envelope.group(envelope).encoded(), channel: groupChannel,
                            accepted: .message(text: text, ciphertext: envelope.ciphertext))
        }
        let received = try group("group one")
        _ = try bob.receive(received.bytes, channel: groupChannel)
        originals.append(received)
        originals.append(try group("group two, not yet received"))
        originals.append(try group("group three, skips two"))

        device = bob
        self.sending = sending
        self.dmChannel = dmChannel
        self.groupChannel = groupChannel
        self.originals = originals
    }
}
