/// The symmetric ratchet of a sender key (docs/spec/protocol.md §4): one chain key per iteration, one
/// message key per iteration, and the AES-256-GCM key derived from that message key (the nonce
/// is random and travels in the envelope).
enum SenderKeyChain {
    /// Length of a chain key and of a message key.
    static let keyLength = 32
    private static let messageKeyInfo = Array("e2ee-group-msg-v2".utf8)
    private static let zeroSalt = [UInt8](repeating: 0, count: 32)

    /// `mk_i = HMAC(CK_i, 0x01)`.
    static func messageKey(chainKey: SecretBytes) -> SecretBytes {
        HMACSHA256.authenticationCode(for: [UInt8(0x01)], key: chainKey)
    }

    /// `CK_{i+1} = HMAC(CK_i, 0x02)`.
    static func nextChainKey(_ chainKey: SecretBytes) -> SecretBytes {
        HMACSHA256.authenticationCode(for: [UInt8(0x02)], key: chainKey)
    }

    /// The AES-256 key of a message key: `HKDF(salt = ZERO32, ikm = mk, info = "e2ee-group-msg-v2", L = 32)`.
    /// - Throws: ``ProtocolError/crypto(_:)`` (never for a 32-byte message key).
    static func aeadKey(messageKey: SecretBytes) throws -> SecretBytes {
        do {
            return try HKDF.deriveKey(inputKeyMaterial: messageKey, salt: zeroSalt, info: messageKeyInfo, outputLength: 32)
        } catch let error as CryptoError {
            throw ProtocolError.crypto(error)
        }
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
