@testable import E2EECrypto

/// Alice's and Bob's keys for one X3DH, drawn from a seeded source in a fixed order:
/// Alice's identity (`IK` scalar, `SIG` seed), Bob's identity, Bob's signed prekey (`spk_id` as a
/// native-order `u32`, redrawn while 0, then the `SPK` scalar), Bob's one-time prekey scalar when
/// `opkID` is non-zero; `X3DH.initiate` then draws `EK` and Alice's first ratchet key.
struct X3DHSetup {
    let alice: IdentityKeyPair
    let bob: IdentityKeyPair
    let signedPrekey: SignedPrekey
    let oneTimePrekey: OneTimePrekey?
    /// Bob's device id in the bundle (not part of any vector).
    static let bundleDevice = "00000000-0000-4000-8000-0000000000b0"
    /// The `createdAt` of Bob's signed prekey and `now` of his responder context.
    static let time: Int64 = 1_764_000_000

    init(random: RecordingRandom, opkID: UInt32) throws {
        alice = IdentityKeyPair(using: random)
        bob = IdentityKeyPair(using: random)
        signedPrekey = try SignedPrekey.generate(identity: bob, retainedIDs: [], createdAt: Self.time, using: random)
        oneTimePrekey = opkID == 0 ? nil : try OneTimePrekey(id: opkID, using: random)
        _ = random.take()
    }

    var spkPublic: [UInt8] { signedPrekey.published.bytes }
    var opkPublic: [UInt8] { oneTimePrekey?.published.bytes ?? [] }

    /// The input fields shared by the X3DH and Double Ratchet vectors.
    func inputFields(into fields: inout JSONObjectBuilder) {
        fields.setHex("initiatorIdentityPrivate", bytesOf(alice.dhKey.rawRepresentation))
        fields.setHex("initiatorSigningSeed", bytesOf(alice.signingKey.seed))
        fields.setHex("responderIdentityPrivate", bytesOf(bob.dhKey.rawRepresentation))
        fields.setHex("responderSigningSeed", bytesOf(bob.signingKey.seed))
        fields.set("signedPrekeyId", signedPrekey.id)
        fields.setHex("signedPrekeyPrivate", bytesOf(signedPrekey.keyPair.rawRepresentation))
        fields.set("oneTimePrekeyId", oneTimePrekey?.id ?? 0)
        fields.setHex("oneTimePrekeyPrivate", oneTimePrekey.map { bytesOf($0.keyPair.rawRepresentation) } ?? [])
    }

    /// Parses a bundle from published byte values exactly as a server would hand them out.
    static func bundle(identity: [UInt8], signedPrekey: [UInt8], signature: [UInt8], oneTimePrekey: [UInt8]) throws -> PrekeyBundle {
        try PrekeyBundle(
            deviceID: bundleDevice, identityKey: Base64.encode(identity), signedPreKey: Base64.encode(signedPrekey),
            signedPreKeySignature: Base64.encode(signature), oneTimePreKey: oneTimePrekey.isEmpty ? nil : Base64.encode(oneTimePrekey)
        )
    }

    /// Bob's honest bundle.
    func bundle() throws -> PrekeyBundle {
        try Self.bundle(identity: bob.publicIdentity.bytes, signedPrekey: spkPublic, signature: signedPrekey.signature, oneTimePrekey: opkPublic)
    }

    /// Alice starts the session; returns it with `EK` and her first ratchet private key.
    func initiate(random: RecordingRandom) throws -> (session: InitiatedSession, ephemeral: [UInt8], ratchet: [UInt8]) {
        _ = random.take()
        let session = try X3DH.initiate(localIdentity: alice, bundle: bundle(), pinnedIdentity: nil, using: random)
        let drawn = random.take()
        guard drawn.count == 64 else { throw GeneratorError("X3DH.initiate drew \(drawn.count) bytes, expected 64") }
        return (session, Array(drawn[0..<32]), Array(drawn[32..<64]))
    }

    /// `SK`, recomputed with the same internal functions `X3DH.initiate` uses, and checked
    /// against the root key the initiated state holds (`KDF_RK(SK, DH(ratchet, SPK_B))`).
    func sharedSecret(ephemeral: [UInt8], ratchet: [UInt8], state: SessionState) throws -> [UInt8] {
        let ek = try X25519.PrivateKey(rawRepresentation: SecretBytes(copying: ephemeral))
        let spk = signedPrekey.keyPair.publicKey
        let sk = try X3DH.sharedKey(
            diffieHellman(alice.dhKey, spk), diffieHellman(ek, bob.dhKey.publicKey), diffieHellman(ek, spk),
            oneTimePrekey.map { try diffieHellman(ek, $0.keyPair.publicKey) }
        )
        let ratchetKey = try X25519.PrivateKey(rawRepresentation: SecretBytes(copying: ratchet))
        let root = try RatchetKDF.root(sk, diffieHellman(ratchetKey, spk))
        guard root.rootKey == state.rootKey else { throw GeneratorError("SK does not give the initiated state's root key") }
        return bytesOf(sk)
    }
}
