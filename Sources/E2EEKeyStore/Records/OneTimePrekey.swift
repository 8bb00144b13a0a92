import E2EECrypto

/// Where a one-time prekey is in its life.
@_spi(StoreInternals) public enum OneTimePrekeyState: String, Sendable, Equatable, CaseIterable {
    /// Stored, not yet accepted by the server.
    case pendingUpload = "pending_upload"
    /// On the server.
    case published
    /// Used by a prekey message; the private key is kept for the grace window, then wiped.
    case consumed
}

/// A one-time prekey with its private key.
@_spi(StoreInternals) public struct OneTimePrekey: Sendable, Equatable {
    /// The id (from the store's counter: starts at 1, never reused).
    public var id: UInt32
    /// X25519 public key (32 bytes).
    public var publicKey: [UInt8]
    /// X25519 private key (sealed at rest).
    public var privateKey: SecretBytes
    /// The state.
    public var state: OneTimePrekeyState
    /// When it was made.
    public var createdAt: StoreTime
    /// When it was consumed (set exactly when `state == .consumed`).
    public var consumedAt: StoreTime?

    /// Creates the value.
    public init(id: UInt32, publicKey: [UInt8], privateKey: SecretBytes, state: OneTimePrekeyState, createdAt: StoreTime, consumedAt: StoreTime? = nil) {
        self.id = id
        self.publicKey = publicKey
        self.privateKey = privateKey
        self.state = state
        self.createdAt = createdAt
        self.consumedAt = consumedAt
    }
}

/// A new key pair for ``KeyStore/addOneTimePrekeys(count:now:generate:)``.
@_spi(StoreInternals) public struct OneTimePrekeyMaterial: Sendable {
    /// X25519 public key (32 bytes).
    public var publicKey: [UInt8]
    /// X25519 private key.
    public var privateKey: SecretBytes

    /// Creates the value.
    public init(publicKey: [UInt8], privateKey: SecretBytes) {
        self.publicKey = publicKey
        self.privateKey = privateKey
    }
}
