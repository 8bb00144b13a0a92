import E2EECrypto

/// A signed prekey: the current one, or a previous one kept until its retention ends.
@_spi(StoreInternals) public struct SignedPrekey: Sendable, Equatable {
    /// The prekey id (`spk_id`).
    public var id: UInt32
    /// X25519 public key (32 bytes).
    public var publicKey: [UInt8]
    /// X25519 private key (sealed at rest).
    public var privateKey: SecretBytes
    /// Ed25519 signature made with the key (64 bytes): over its record with the zero certificate
    /// (text 1.2's form for keys made before `v17`). Uploads sign the record they publish afresh,
    /// since its certificate may have changed, so this is kept, never published.
    public var signature: [UInt8]
    /// `true` for the one current prekey.
    public var isCurrent: Bool
    /// When it was made.
    public var createdAt: StoreTime
    /// When a newer prekey replaced it (`nil` while current).
    public var retiredAt: StoreTime?

    /// Creates the value.
    public init(id: UInt32, publicKey: [UInt8], privateKey: SecretBytes, signature: [UInt8], isCurrent: Bool, createdAt: StoreTime, retiredAt: StoreTime? = nil) {
        self.id = id
        self.publicKey = publicKey
        self.privateKey = privateKey
        self.signature = signature
        self.isCurrent = isCurrent
        self.createdAt = createdAt
        self.retiredAt = retiredAt
    }
}
