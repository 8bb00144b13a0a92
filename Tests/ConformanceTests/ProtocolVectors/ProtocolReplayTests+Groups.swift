import E2EEConformance
import E2EECrypto
import E2EEProtocolVectorGenerator
import E2EETestSupport
import Testing

extension ProtocolReplayTests {
    @Test("sender_key_chain_test.json")
    func senderKeyChain() throws {
        let file = try ProtocolReplay.file("sender_key_chain_test.json")
        var tally = ReplayTally()
        for test in file.cases {
            try replayChain(test, tally: &tally)
            tally.valid += 1
        }
        #expect(tally.valid >= 2)
        ProtocolReplay.summary(file, tally)
    }

    /// Installs the chain at iteration 0 the way an SKD does and decrypts, in order, one group
    /// message per listed iteration sealed with that item's `aesKey` and `nonce`: our receiving
    /// code must derive the same keys, skipping what the list skips. `messageKey` and
    /// `nextChainKey` are checked with the HMAC and HKDF primitives.
    private func replayChain(_ test: VectorCase, tally: inout ReplayTally) throws {
        let channel = try WireUUID(bytes: [UInt8](repeating: 0xC1, count: 16)), sender = try WireUUID(bytes: [UInt8](repeating: 0x5E, count: 16))
        let signer = try Ed25519.PrivateKey(seed: SecretBytes(copying: [UInt8](repeating: 0x07, count: 32)))
        let keyID: UInt32 = 0x0102_0304
        let skd = [PairwisePlaintext.senderKeyDistributionType] + channel.bytes + ProtocolReplay.bigEndian(keyID) + [0, 0, 0, 0]
            + (try test.hex("chainKey")) + signer.publicKey.rawRepresentation
        guard case .senderKeyDistribution(let distribution) = try PairwisePlaintext.decode(SecretBytes(copying: skd)),
              case .install(var state) = try distribution.process(postedChannel: channel, senderDevice: sender, existing: nil, now: 0)
        else { throw VectorFieldError(field: "chainKey (not installable)") }
        var chainKey = try test.hex("chainKey"), position = 0
        for item in try test.list("iterations") {
            let iteration = try #require(item["iteration"]?.int)
            let what = "\(test.label) iteration \(iteration)"
            while position < iteration {
                chainKey = HMACSHA256.authenticationCode(for: [UInt8(0x02)], key: chainKey).unprotectedCopy()
                position += 1
            }
            let messageKey = HMACSHA256.authenticationCode(for: [UInt8(0x01)], key: chainKey).unprotectedCopy()
            let material = try HKDF.deriveKey(inputKeyMaterial: messageKey, salt: [UInt8](repeating: 0, count: 32),
                                              info: Array("e2ee-group-v1".utf8), outputLength: 44).unprotectedCopy()
            chainKey = HMACSHA256.authenticationCode(for: [UInt8(0x02)], key: chainKey).unprotectedCopy()
            position += 1
            #expect(try messageKey == item.hex("messageKey"), "\(what): messageKey")
            #expect(try Array(material[0..<32]) == item.hex("aesKey") && Array(material[32..<44]) == item.hex("nonce"), "\(what): aesKey/nonce")
            #expect(try chainKey == item.hex("nextChainKey"), "\(what): nextChainKey")

            let header = [UInt8]([0x03, 0x02]) + sender.bytes + ProtocolReplay.bigEndian(keyID) + ProtocolReplay.bigEndian(UInt32(iteration))
            let payload = Array("iteration \(iteration)".utf8)
            let ciphertext = try AES256GCM.seal(payload, key: item.hex("aesKey"), nonce: item.hex("nonce"),
                                                authenticating: Array("e2ee-group-aad-v1".utf8) + channel.bytes + header)
            let signature = signer.signature(for: Array("e2ee-group-sig-v1".utf8) + channel.bytes + header + ciphertext)
            let envelope = try GroupEnvelope(senderDevice: sender, keyID: keyID, iteration: UInt32(iteration), ciphertext: ciphertext, signature: signature)
            let opened = try state.decrypt(envelope, channel: channel, now: 0)
            #expect(opened.plaintext.unprotectedCopy() == payload, "\(what): our receiver derived other keys")
            state = opened.state
            tally.events += 1
        }
    }

    @Test("safety_numbers_test.json")
    func safetyNumbers() throws {
        let file = try ProtocolReplay.file("safety_numbers_test.json")
        var tally = ReplayTally()
        for test in file.cases {
            let blobsA = try test.list("blobsA").map { try Hex.decode(#require($0.string)) }
            let blobsB = try test.list("blobsB").map { try Hex.decode(#require($0.string)) }
            let userA = try test.text("userA"), userB = try test.text("userB")
            #expect(try SafetyNumber.fingerprint(userID: userA, identityBlobs: blobsA) == test.text("fingerprintA"), "\(test.label)")
            #expect(try SafetyNumber.fingerprint(userID: userB, identityBlobs: blobsB) == test.text("fingerprintB"), "\(test.label)")
            #expect(try SafetyNumber.compute(userA: userA, blobsA: blobsA, userB: userB, blobsB: blobsB) == test.text("safetyNumber"), "\(test.label)")
            #expect(try SafetyNumber.compute(userA: userB, blobsA: blobsB, userB: userA, blobsB: blobsA) == test.text("safetyNumber"), "\(test.label): order")
            tally.valid += 1
        }
        #expect(tally.valid >= 2)
        ProtocolReplay.summary(file, tally)
    }

    @Test("payload_test.json")
    func payloads() throws {
        let file = try ProtocolReplay.file("payload_test.json")
        var tally = ReplayTally()
        for test in file.cases {
            let json = try test.hex("json")
            let context = try test.text("context")
            let check = { (payload: MessagePayload) throws in
                if context == "edit" {
                    try payload.checkEdit(of: WireUUID(text: test.text("messageId")))
                } else {
                    try payload.checkPosted()
                }
            }
            guard test.result == .valid else {
                ProtocolReplay.expectRefusal(test.failure, test.label) { try check(MessagePayload(json: json)) }
                tally.invalid += 1
                continue
            }
            let payload = try MessagePayload(json: json)
            try check(payload)
            let fields = try #require(test.fields["fields"])
            #expect(try payload.id.text == fields.text("id"), "\(test.label)")
            #expect(payload.timestamp == fields["ts"]?.int.map(Int64.init), "\(test.label)")
            #expect(try payload.text == fields.text("text"), "\(test.label)")
            #expect(payload.editOf?.text == fields["edit_of"]?.string, "\(test.label)")
            #expect(payload.replyTo?.text == fields["reply_to"]?.string, "\(test.label)")
            let encoded = payload.encodedJSON().unprotectedCopy()
            #expect(try encoded == test.hex("encoded"), "\(test.label)")
            #expect(try MessagePayload(json: encoded) == payload, "\(test.label): the encoding does not parse back")
            tally.valid += 1
        }
        #expect(tally.valid > 0 && tally.invalid > 0)
        ProtocolReplay.summary(file, tally)
    }
}
