import E2EECrypto

/// This device's long-term keys: the X25519 identity key and the Ed25519 signing key.
package struct IdentityKeyPair: Sendable, Equatable {
    /// X25519 public identity key (32 bytes).
    public var identityPublic: [UInt8]
    /// X25519 private identity key (sealed at rest).
    public var identityPrivate: SecretBytes
    /// Ed25519 public signing key (32 bytes).
    public var signingPublic: [UInt8]
    /// Ed25519 private signing key, in libsodium's form (sealed at rest).
    public var signingPrivate: SecretBytes
    /// When the keys were made.
    public var createdAt: StoreTime

    /// Creates the value.
    public init(identityPublic: [UInt8], identityPrivate: SecretBytes, signingPublic: [UInt8], signingPrivate: SecretBytes, createdAt: StoreTime) {
        self.identityPublic = identityPublic
        self.identityPrivate = identityPrivate
        self.signingPublic = signingPublic
        self.signingPrivate = signingPrivate
        self.createdAt = createdAt
    }
}
