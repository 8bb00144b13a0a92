import E2EECrypto

/// The 32-byte key that seals every secret column of one store file.
///
/// The app keeps it (typically in its keychain) or derives it from a passphrase; the store
/// never writes it to disk.
public struct StoreKey: Sendable, CustomStringConvertible {
    /// The key length in bytes.
    public static let length = 32

    /// The key bytes.
    let bytes: SecretBytes

    /// Wraps 32 key bytes.
    /// - Throws: ``KeyStoreError/invalidKeyLength(actual:)`` for any other length.
    public init(_ bytes: SecretBytes) throws {
        guard bytes.count == Self.length else { throw KeyStoreError.invalidKeyLength(actual: bytes.count) }
        self.bytes = bytes
    }

    /// A fresh random key, for an app creating a new store.
    public static func random(using random: some RandomSource = SystemRandom()) -> StoreKey {
        StoreKey(unchecked: SecretBytes.random(count: length, using: random))
    }

    /// Derives a key from a passphrase with Argon2id.
    /// - Throws: `CryptoError` when the salt or parameters are invalid or Argon2id cannot run.
    public static func derive(passphrase: SecretBytes, salt: [UInt8], parameters: Argon2id.Parameters) throws -> StoreKey {
        StoreKey(unchecked: try Argon2id.deriveKey(password: passphrase, salt: salt, parameters: parameters, outputLength: length))
    }

    private init(unchecked bytes: SecretBytes) {
        self.bytes = bytes
    }

    /// Never reveals the key.
    public var description: String { "StoreKey(<redacted>)" }
}
