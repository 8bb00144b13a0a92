import E2EECrypto

/// `E2EE-X3DH` (docs/spec/protocol.md §1-§2): Alice initiates from the file's keys and must reproduce the
/// published values, the ephemeral key and `AD`; `SK` is recomputed from §2 with the
/// primitives, and Bob's side must open Alice's first message. An invalid case's bundle must
/// be refused with the `failure` it names.
struct X3DHRunner: AlgorithmRunner {
    let algorithms: Set<String> = ["E2EE-X3DH"]

    func attempt(_ vector: VectorCase) throws -> Attempt {
        let alice = try ProtocolKeys.identity(vector, dh: "initiatorIdentityPrivate", seed: "initiatorSigningSeed")
        let published = (identity: try vector.hex("responderIdentityBlob"), signedPrekey: try vector.hex("signedPrekeyPublic"),
                         signature: try vector.hex("signedPrekeySignature"), oneTimePrekey: try vector.hex("oneTimePrekeyPublic"))
        let makeBundle = {
            try ProtocolKeys.bundle(identity: published.identity, signedPrekey: published.signedPrekey, signature: published.signature,
                                    oneTimePrekey: published.oneTimePrekey)
        }
        guard vector.result == .valid else {
            guard try vector.text("sharedSecret").isEmpty, try vector.text("associatedData").isEmpty else {
                return .misrefused("an invalid case with a sharedSecret or associatedData")
            }
            return try refusal(of: vector) {
                _ = try X3DH.initiate(localIdentity: alice, bundle: makeBundle(), pinnedIdentity: nil, using: ScriptedRandom([]))
            }
        }
        let bob = try ProtocolKeys.identity(vector, dh: "responderIdentityPrivate", seed: "responderSigningSeed")
        let ephemeralPrivate = try vector.hex("ephemeralPrivate")
        let expected = (ephemeral: try vector.hex("ephemeralPublic"), associatedData: try vector.hex("associatedData"),
                        sharedSecret: try vector.hex("sharedSecret"), aliceIdentity: try vector.hex("initiatorIdentityBlob"))
        return refusing {
            let spk = try ProtocolKeys.signedPrekey(vector, bob: bob)
            let opk = try ProtocolKeys.oneTimePrekey(vector)
            try check(alice.publicIdentity.bytes == expected.aliceIdentity, "initiatorIdentityBlob")
            try check(bob.publicIdentity.bytes == published.identity, "responderIdentityBlob")
            try check(spk.published.bytes == published.signedPrekey, "signedPrekeyPublic")
            try check(spk.signature == published.signature, "signedPrekeySignature")
            try check((opk?.published.bytes ?? []) == published.oneTimePrekey, "oneTimePrekeyPublic")
            // Alice's side: EK from the file, then any first ratchet key.
            let random = ScriptedRandom(ephemeralPrivate + [UInt8](repeating: 0x42, count: 32))
            let session = try X3DH.initiate(localIdentity: alice, bundle: makeBundle(), pinnedIdentity: nil, using: random)
            try check(random.requested == 64, "the initiator drew \(random.requested) random bytes, not 64")
            try check(session.state.baseKey.rawRepresentation == expected.ephemeral, "ephemeralPublic")
            try check(session.state.associatedData == expected.associatedData, "associatedData")
            // SK is not public API: recompute it from §2 with the primitives, then require Bob's
            // side to derive the same session and open Alice's first message.
            let ephemeral = try X25519.PrivateKey(rawRepresentation: SecretBytes(copying: ephemeralPrivate))
            var ikm = [UInt8](repeating: 0xFF, count: 32)
            ikm += try alice.dhKey.sharedSecret(with: spk.keyPair.publicKey).unprotectedCopy()
            ikm += try ephemeral.sharedSecret(with: bob.dhKey.publicKey).unprotectedCopy()
            ikm += try ephemeral.sharedSecret(with: spk.keyPair.publicKey).unprotectedCopy()
            if let opk { ikm += try ephemeral.sharedSecret(with: opk.keyPair.publicKey).unprotectedCopy() }
            let sharedSecret = try HKDF.deriveKey(inputKeyMaterial: ikm, salt: [UInt8](repeating: 0, count: 32),
                                                  info: Array("e2ee-x3dh-v1".utf8), outputLength: 32)
            try check(sharedSecret.unprotectedCopy() == expected.sharedSecret, "sharedSecret")
            let sent = try SessionRecord.installing(session.state, into: nil).encrypt([0x01, 0x02, 0x03])
            let bobDevice = PairwiseDevice(identity: bob, record: nil, signedPrekeys: [spk], oneTimePrekeys: opk.map { [$0] } ?? [],
                                           pinned: nil, listed: alice.publicIdentity, now: 1_764_000_000)
            try check(try bobDevice.receiving(sent.message, using: ScriptedRandom([])).plaintext == [0x01, 0x02, 0x03],
                      "the responder did not open the first message")
            return .matched
        }
    }
}
