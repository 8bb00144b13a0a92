import CSodium

/// X25519 Diffie-Hellman (RFC 7748) through libsodium's `crypto_scalarmult`.
public enum X25519 {
    /// Length of keys and shared secrets in bytes.
    public static let keyLength = 32

    /// An X25519 public key (a u-coordinate). Only the length is checked here; the protocol's
    /// canonical and low-order checks live with the protocol's key parsing.
    public struct PublicKey: Sendable, Hashable {
        /// The 32 bytes of the u-coordinate.
        public let rawRepresentation: [UInt8]

        /// Wraps 32 bytes.
        /// - Throws: ``CryptoError/invalidLength(_:expected:actual:)`` for any other length.
        public init(rawRepresentation: [UInt8]) throws {
            guard rawRepresentation.count == X25519.keyLength else {
                throw CryptoError.invalidLength(.publicKey, expected: X25519.keyLength, actual: rawRepresentation.count)
            }
            self.rawRepresentation = rawRepresentation
        }

        /// Wraps bytes this module produced itself with the right length.
        fileprivate init(unchecked bytes: [UInt8]) {
            rawRepresentation = bytes
        }
    }

    /// An X25519 private key with its public key.
    public struct PrivateKey: Sendable, CustomStringConvertible {
        /// The 32-byte scalar (clamped by libsodium when used).
        public let rawRepresentation: SecretBytes
        /// The matching public key.
        public let publicKey: PublicKey

        /// A new key from `random`.
        public init(using random: some RandomSource = SystemRandom()) {
            // A 32-byte scalar always yields a valid public key.
            self.init(scalar: SecretBytes.random(count: X25519.keyLength, using: random))
        }

        /// Wraps an existing 32-byte scalar.
        /// - Throws: ``CryptoError/invalidLength(_:expected:actual:)``.
        public init(rawRepresentation: SecretBytes) throws {
            guard rawRepresentation.count == X25519.keyLength else {
                throw CryptoError.invalidLength(.privateKey, expected: X25519.keyLength, actual: rawRepresentation.count)
            }
            self.init(scalar: rawRepresentation)
        }

        /// Derives the public key of a scalar already known to be 32 bytes.
        private init(scalar rawRepresentation: SecretBytes) {
            var pub = [UInt8](repeating: 0, count: X25519.keyLength)
            rawRepresentation.withUnsafeBytes { scalar in
                pub.withUnsafeMutableBytes { out in _ = crypto_scalarmult_base(out.cBase, scalar.cBase) }
            }
            self.rawRepresentation = rawRepresentation
            self.publicKey = PublicKey(unchecked: pub)
        }

        /// The shared secret `X25519(self, peer)`.
        /// - Throws: ``CryptoError/allZeroSharedSecret`` when the result is all zero (the peer
        ///   key has small order).
        public func sharedSecret(with peer: PublicKey) throws -> SecretBytes {
            var status: Int32 = 0
            let secret = SecretBytes(count: X25519.keyLength) { out in
                rawRepresentation.withUnsafeBytes { scalar in
                    peer.rawRepresentation.withUnsafeBytes { point in
                        status = crypto_scalarmult(out.cBase, scalar.cBase, point.cBase)
                    }
                }
            }
            guard status == 0, !secret.withUnsafeBytes({ sodium_is_zero($0.cBase, $0.count) == 1 }) else {
                throw CryptoError.allZeroSharedSecret
            }
            return secret
        }

        /// Never reveals the private scalar.
        public var description: String { "X25519.PrivateKey(<redacted>)" }
    }
}
