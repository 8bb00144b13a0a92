import CSodium

/// Ed25519 signatures (RFC 8032) through libsodium, with its strict verification rules
/// (`S < L`, `R` and `A` canonical and not of small order).
public enum Ed25519 {
    /// Public key length in bytes.
    public static let publicKeyLength = Int(crypto_sign_PUBLICKEYBYTES)
    /// Seed (private key) length in bytes.
    public static let seedLength = Int(crypto_sign_SEEDBYTES)
    /// Signature length in bytes.
    public static let signatureLength = Int(crypto_sign_BYTES)

    /// An Ed25519 public key.
    public struct PublicKey: Sendable, Hashable {
        /// The 32-byte encoded point `A`.
        public let rawRepresentation: [UInt8]

        /// Wraps 32 bytes; the point itself is checked by ``validated()`` and by verification.
        /// - Throws: ``CryptoError/invalidLength(_:expected:actual:)``.
        public init(rawRepresentation: [UInt8]) throws {
            guard rawRepresentation.count == Ed25519.publicKeyLength else {
                throw CryptoError.invalidLength(.publicKey, expected: Ed25519.publicKeyLength, actual: rawRepresentation.count)
            }
            self.rawRepresentation = rawRepresentation
        }

        /// Wraps bytes this module produced itself with the right length.
        init(unchecked bytes: [UInt8]) {
            rawRepresentation = bytes
        }

        /// `self` when the encoding is canonical, decodes to a curve point, and that point is not
        /// of small order (`crypto_core_ed25519_is_valid_point`). Keys that passed recently are
        /// remembered and not checked again (`ValidPointCache`).
        /// - Throws: ``CryptoError/invalidPublicKey``.
        public func validated() throws -> PublicKey {
            if ValidPointCache.shared.contains(rawRepresentation) { return self }
            let valid = rawRepresentation.withUnsafeBytes { crypto_core_ed25519_is_valid_point($0.cBase) == 1 }
            guard valid else { throw CryptoError.invalidPublicKey }
            ValidPointCache.shared.insert(rawRepresentation)
            return self
        }

        /// `true` when `signature` is a valid signature of `message` by this key.
        public func isValidSignature(_ signature: some ByteView, for message: some ByteView) -> Bool {
            signature.withByteView { sig in
                guard sig.count == Ed25519.signatureLength else { return false }
                return message.withByteView { msg in
                    rawRepresentation.withUnsafeBytes { pk in
                        crypto_sign_verify_detached(sig.cBase, msg.cBase, UInt64(msg.count), pk.cBase) == 0
                    }
                }
            }
        }

        /// Verifies `signature` over `message`.
        /// - Throws: ``CryptoError/invalidLength(_:expected:actual:)`` for a signature that is
        ///   not 64 bytes, ``CryptoError/invalidSignature`` when it does not verify.
        public func verify(_ signature: some ByteView, for message: some ByteView) throws {
            let length = signature.withByteView { $0.count }
            guard length == Ed25519.signatureLength else {
                throw CryptoError.invalidLength(.signature, expected: Ed25519.signatureLength, actual: length)
            }
            guard isValidSignature(signature, for: message) else { throw CryptoError.invalidSignature }
        }
    }

    /// An Ed25519 signing key: the 32-byte seed, libsodium's expanded form, and the public key.
    public struct PrivateKey: Sendable, CustomStringConvertible {
        /// The 32-byte seed (RFC 8032's private key).
        public let seed: SecretBytes
        /// libsodium's 64-byte secret key (seed followed by the public key).
        private let expanded: SecretBytes
        /// The matching public key.
        public let publicKey: PublicKey

        /// A new key from `random`.
        public init(using random: some RandomSource = SystemRandom()) {
            self.init(validSeed: SecretBytes.random(count: Ed25519.seedLength, using: random))
        }

        /// The key for a 32-byte seed.
        /// - Throws: ``CryptoError/invalidLength(_:expected:actual:)``.
        public init(seed: SecretBytes) throws {
            guard seed.count == Ed25519.seedLength else {
                throw CryptoError.invalidLength(.seed, expected: Ed25519.seedLength, actual: seed.count)
            }
            self.init(validSeed: seed)
        }

        /// Expands a seed already known to be 32 bytes.
        private init(validSeed seed: SecretBytes) {
            var pub = [UInt8](repeating: 0, count: Ed25519.publicKeyLength)
            let expanded = SecretBytes(count: Int(crypto_sign_SECRETKEYBYTES)) { sk in
                seed.withUnsafeBytes { s in
                    pub.withUnsafeMutableBytes { pk in _ = crypto_sign_seed_keypair(pk.cBase, sk.cBase, s.cBase) }
                }
            }
            self.seed = seed
            self.expanded = expanded
            self.publicKey = PublicKey(unchecked: pub)
        }

        /// The deterministic RFC 8032 signature of `message`.
        public func signature(for message: some ByteView) -> [UInt8] {
            var signature = [UInt8](repeating: 0, count: Ed25519.signatureLength)
            message.withByteView { msg in
                expanded.withUnsafeBytes { sk in
                    signature.withUnsafeMutableBytes { out in
                        _ = crypto_sign_detached(out.cBase, nil, msg.cBase, UInt64(msg.count), sk.cBase)
                    }
                }
            }
            return signature
        }

        /// Never reveals the seed.
        public var description: String { "Ed25519.PrivateKey(<redacted>)" }
    }
}
