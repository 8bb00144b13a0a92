import E2EECrypto
import E2EETestSupport
import Testing

@Suite("X25519")
struct X25519Tests {
    @Test("both sides derive the same secret")
    func agreement() throws {
        let alice = X25519.PrivateKey()
        let bob = X25519.PrivateKey()
        #expect(try alice.sharedSecret(with: bob.publicKey) == bob.sharedSecret(with: alice.publicKey))
    }

    /// Low-order points (RFC 7748 §6.1 / docs/spec/protocol.md §0) give an all-zero output: a typed error.
    @Test("low-order peer keys give a typed all-zero error", arguments: [
        "0000000000000000000000000000000000000000000000000000000000000000",
        "0100000000000000000000000000000000000000000000000000000000000000",
        "e0eb7a7c3b41b8ae1656e3faf19fc46ada098deb9c32b1fd866205165f49b800",
        "5f9c95bca3508c24b1d0b1559c83ef5b04445cc4581c8e86d8224eddd09f1157",
        "ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",
    ])
    func lowOrderPoints(_ hex: String) throws {
        let point = try X25519.PublicKey(rawRepresentation: Hex.decode(hex))
        #expect(throws: CryptoError.allZeroSharedSecret) { try X25519.PrivateKey().sharedSecret(with: point) }
    }

    @Test("wrong key lengths are typed errors")
    func lengths() {
        #expect(throws: CryptoError.invalidLength(.publicKey, expected: 32, actual: 31)) {
            try X25519.PublicKey(rawRepresentation: [UInt8](repeating: 9, count: 31))
        }
        #expect(throws: CryptoError.invalidLength(.privateKey, expected: 32, actual: 33)) {
            try X25519.PrivateKey(rawRepresentation: SecretBytes(copying: [UInt8](repeating: 9, count: 33)))
        }
    }
}

@Suite("Ed25519")
struct Ed25519Tests {
    @Test("sign then verify; any change is refused")
    func signVerify() throws {
        let key = Ed25519.PrivateKey()
        let message: [UInt8] = Array("attack at dawn".utf8)
        let signature = key.signature(for: message)
        try key.publicKey.verify(signature, for: message)
        var forged = signature
        forged[10] ^= 1
        #expect(throws: CryptoError.invalidSignature) { try key.publicKey.verify(forged, for: message) }
        #expect(throws: CryptoError.invalidSignature) { try key.publicKey.verify(signature, for: message + [0]) }
        #expect(throws: CryptoError.invalidSignature) { try Ed25519.PrivateKey().publicKey.verify(signature, for: message) }
    }

    @Test("a signature of the wrong length is a typed error, not a trap")
    func signatureLength() throws {
        let key = Ed25519.PrivateKey()
        #expect(throws: CryptoError.invalidLength(.signature, expected: 64, actual: 63)) {
            try key.publicKey.verify([UInt8](repeating: 0, count: 63), for: [])
        }
        #expect(!key.publicKey.isValidSignature([UInt8](), for: [UInt8]()))
    }

    @Test("the same seed gives the same key and signatures")
    func deterministic() throws {
        let seed = SecretBytes(copying: [UInt8](repeating: 7, count: 32))
        let a = try Ed25519.PrivateKey(seed: seed)
        let b = try Ed25519.PrivateKey(seed: seed)
        #expect(a.publicKey == b.publicKey)
        #expect(a.signature(for: [1, 2, 3]) == b.signature(for: [1, 2, 3]))
    }

    @Test("small-order and non-canonical public keys fail validation", arguments: [
        "0100000000000000000000000000000000000000000000000000000000000000", // identity, small order
        "0000000000000000000000000000000000000000000000000000000000000000", // order 4
        "edffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f", // y = p, non-canonical
    ])
    func invalidPoints(_ hex: String) throws {
        let key = try Ed25519.PublicKey(rawRepresentation: Hex.decode(hex))
        #expect(throws: CryptoError.invalidPublicKey) { try key.validated() }
    }

    @Test("honest public keys pass validation")
    func validPoint() throws {
        _ = try Ed25519.PrivateKey().publicKey.validated()
    }
}
