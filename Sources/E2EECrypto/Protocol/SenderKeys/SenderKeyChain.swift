/// The symmetric ratchet of a sender key (docs/spec/protocol.md §4): one chain key per iteration, one
/// message key per iteration, and the AES-256-GCM key and nonce derived from that message key.
enum SenderKeyChain {
    /// Length of a chain key and of a message key.
    static let keyLength = 32
    private static let messageKeyInfo = Array("e2ee-group-v1".utf8)
    private static let zeroSalt = [UInt8](repeating: 0, count: 32)

    /// `mk_i = HMAC(CK_i, 0x01)`.
    static func messageKey(chainKey: SecretBytes) -> SecretBytes {
        HMACSHA256.authenticationCode(for: [UInt8(0x01)], key: chainKey)
    }

    /// `CK_{i+1} = HMAC(CK_i, 0x02)`.
    static func nextChainKey(_ chainKey: SecretBytes) -> SecretBytes {
        HMACSHA256.authenticationCode(for: [UInt8(0x02)], key: chainKey)
    }

    /// The AES key (32) and nonce (12) of a message key:
    /// `HKDF(salt = ZERO32, ikm = mk, info = "e2ee-group-v1", L = 44)`.
    /// - Throws: ``ProtocolError/crypto(_:)`` (never for a 32-byte message key).
    static func aeadKeyAndNonce(messageKey: SecretBytes) throws -> (key: SecretBytes, nonce: [UInt8]) {
        let material: SecretBytes
        do {
            material = try HKDF.deriveKey(inputKeyMaterial: messageKey, salt: zeroSalt, info: messageKeyInfo, outputLength: 44)
        } catch let error as CryptoError {
            throw ProtocolError.crypto(error)
        }
        // The nonce is not secret once used (it is implied by the public iteration).
        let nonce = material.withUnsafeBytes { Array($0[32..<44]) }
        return (material.slice(0..<32), nonce)
    }
}

/// Maps a primitive failure of an AEAD open onto the protocol's typed outcomes.
func protocolError(fromAEAD error: any Error) -> ProtocolError {
    switch error {
    case CryptoError.authenticationFailed, CryptoError.lengthOutOfRange: .badTag
    case let crypto as CryptoError: .crypto(crypto)
    case let protocolError as ProtocolError: protocolError
    default: .crypto(.authenticationFailed)
    }
}
