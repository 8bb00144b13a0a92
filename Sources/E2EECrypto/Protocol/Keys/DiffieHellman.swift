/// Runs an X25519 agreement and maps the primitive's failures to protocol errors.
/// - Throws: ``ProtocolError/allZeroSharedSecret`` for a low-order peer key.
func diffieHellman(_ privateKey: X25519.PrivateKey, _ publicKey: X25519.PublicKey) throws -> SecretBytes {
    do {
        return try privateKey.sharedSecret(with: publicKey)
    } catch CryptoError.allZeroSharedSecret {
        throw ProtocolError.allZeroSharedSecret
    } catch let error as CryptoError {
        throw ProtocolError.crypto(error)
    }
}
