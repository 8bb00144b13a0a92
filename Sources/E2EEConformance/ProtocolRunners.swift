import E2EECrypto

// Protocol vector files (TestVectors/protocol/) whose replay needs only E2EECrypto's public API.
// The X3DH, Double Ratchet, envelope, record and safety-number files have their own runners
// (X3DHRunner.swift, RatchetRunner.swift, EnvelopeRunner.swift, RecordRunner.swift,
// SafetyNumberRunner.swift).

/// `E2EE-PAYLOAD`: the strict payload JSON parsed, checked for its context, its fields
/// compared and its canonical encoding reproduced (and parsed back); an invalid one must be
/// refused with the `failure` it names.
struct PayloadRunner: AlgorithmRunner {
    let algorithms: Set<String> = ["E2EE-PAYLOAD"]

    func attempt(_ vector: VectorCase) throws -> Attempt {
        let json = try vector.hex("json")
        let context = try vector.text("context")
        let editedID = context == "edit" ? try vector.text("messageId") : nil
        let encoded = vector.result == .valid ? try vector.hex("encoded") : []
        let fields = vector.fields["fields"]
        let parse = {
            let payload = try MessagePayload(json: json)
            if let editedID { try payload.checkEdit(of: WireUUID(text: editedID)) } else { try payload.checkPosted() }
            return payload
        }
        guard vector.result == .valid else { return try refusal(of: vector) { _ = try parse() } }
        return refusing {
            let payload = try parse()
            if let fields {
                guard payload.id.text == fields["id"]?.string, payload.timestamp == fields["ts"]?.int.map(Int64.init),
                      payload.text == fields["text"]?.string, payload.editOf?.text == fields["edit_of"]?.string,
                      payload.replyTo?.text == fields["reply_to"]?.string, payload.with?.text == fields["with"]?.string else {
                    return .mismatched("decoded fields")
                }
            }
            let canonical = payload.encodedJSON().unprotectedCopy()
            try check(try MessagePayload(json: canonical) == payload, "the encoding does not parse back")
            return compare(canonical, encoded)
        }
    }
}

/// `E2EE-SENDER-KEY`: the chain installed the way an SKD installs it, then one group message
/// per listed iteration — sealed with the vector's key under a nonce of our own, as the nonce
/// is random per message (§5.3) — must decrypt through our receiving state (which derives its
/// own keys, skipping what the list skips); `messageKey`, `aesKey` and `nextChainKey` are
/// checked with the HMAC and HKDF primitives.
struct SenderKeyChainRunner: AlgorithmRunner {
    let algorithms: Set<String> = ["E2EE-SENDER-KEY"]

    func attempt(_ vector: VectorCase) throws -> Attempt {
        var chainKey = try vector.hex("chainKey")
        guard let iterations = vector.fields["iterations"]?.array else { throw VectorFieldError(field: "iterations") }
        let steps = try iterations.map { item -> (Int, [UInt8], [UInt8], [UInt8]) in
            // Bounded: every skipped iteration costs an HMAC here before the receiver can refuse.
            guard let iteration = item["iteration"]?.int, (0...Self.maximumIteration).contains(iteration) else {
                throw VectorFieldError(field: "iteration")
            }
            return (iteration, try item.hex("messageKey"), try item.hex("aesKey"), try item.hex("nextChainKey"))
        }
        return refusing {
            let channel = try WireUUID(bytes: [UInt8](repeating: 0xC1, count: 16))
            let sender = try WireUUID(bytes: [UInt8](repeating: 0x5E, count: 16))
            let signer = try Ed25519.PrivateKey(seed: SecretBytes(copying: [UInt8](repeating: 0x07, count: 32)))
            let keyID: UInt32 = 0x0102_0304
            let skd = [PairwisePlaintext.senderKeyDistributionType] + channel.bytes + WireWriter.bytes(keyID) + [0, 0, 0, 0]
                + chainKey + signer.publicKey.rawRepresentation
            guard case .senderKeyDistribution(let distribution) = try PairwisePlaintext.decode(SecretBytes(copying: skd)),
                  case .install(var state) = try distribution.process(postedChannel: channel, senderDevice: sender, existing: nil, now: 0)
            else { return .mismatched("the chain key does not install") }
            var position = 0
            for (iteration, messageKey, aesKey, nextChainKey) in steps {
                while position < iteration {
                    chainKey = HMACSHA256.authenticationCode(for: [UInt8(0x02)], key: chainKey).unprotectedCopy()
                    position += 1
                }
                let derivedMessageKey = HMACSHA256.authenticationCode(for: [UInt8(0x01)], key: chainKey).unprotectedCopy()
                guard derivedMessageKey == messageKey else { return .mismatched("messageKey at iteration \(iteration)") }
                let derivedKey = try HKDF.deriveKey(inputKeyMaterial: derivedMessageKey, salt: [UInt8](repeating: 0, count: 32),
                                                    info: Array("e2ee-group-msg-v2".utf8), outputLength: 32).unprotectedCopy()
                guard derivedKey == aesKey else { return .mismatched("aesKey at iteration \(iteration)") }
                chainKey = HMACSHA256.authenticationCode(for: [UInt8(0x02)], key: chainKey).unprotectedCopy()
                position += 1
                guard chainKey == nextChainKey else { return .mismatched("nextChainKey at iteration \(iteration)") }
                let nonce = [UInt8](repeating: UInt8(truncatingIfNeeded: iteration), count: 12)
                let header = [UInt8]([0x03, 0x02]) + sender.bytes + WireWriter.bytes(keyID) + WireWriter.bytes(UInt32(truncatingIfNeeded: iteration))
                    + nonce
                let payload = Array("iteration \(iteration)".utf8)
                let ciphertext = try AES256GCM.seal(payload, key: aesKey, nonce: nonce,
                                                    authenticating: Array("e2ee-group-aad-v2".utf8) + channel.bytes + header)
                let signature = signer.signature(for: Array("e2ee-group-sig-v2".utf8) + channel.bytes + header + ciphertext)
                let envelope = try GroupEnvelope(senderDevice: sender, keyID: keyID, iteration: UInt32(truncatingIfNeeded: iteration), nonce: nonce,
                                                 ciphertext: ciphertext, signature: signature)
                let opened = try state.decrypt(envelope, channel: channel, now: 0)
                guard opened.plaintext.unprotectedCopy() == payload else { return .mismatched("our receiver derived other keys at \(iteration)") }
                state = opened.state
            }
            return .matched
        }
    }

    /// The highest iteration a vector may list.
    private static let maximumIteration = 1 << 20
}

extension VectorCase {
    /// The string field `name`.
    /// - Throws: ``VectorFieldError`` when it is missing or not a string.
    public func text(_ name: String) throws -> String {
        guard let value = fields[name]?.string else { throw VectorFieldError(field: name) }
        return value
    }
}
