/// A device's long-term identity: the X25519 key `IK` and the Ed25519 signing key `SIG`
/// (docs/spec/protocol.md §1). Secret; its description never shows the private keys.
public struct IdentityKeyPair: Sendable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// Version byte of the stored form.
    static let storageVersion: UInt8 = 0x01
    /// Length of the stored form: version, IK scalar, SIG seed.
    static let storageLength = 1 + X25519.keyLength + Ed25519.seedLength

    /// The X25519 identity key pair.
    public let dhKey: X25519.PrivateKey
    /// The Ed25519 identity signing key pair.
    public let signingKey: Ed25519.PrivateKey

    /// A new identity from `random`.
    public init(using random: some RandomSource = SystemRandom()) {
        dhKey = X25519.PrivateKey(using: random)
        signingKey = Ed25519.PrivateKey(using: random)
    }

    /// Wraps existing keys.
    public init(dhKey: X25519.PrivateKey, signingKey: Ed25519.PrivateKey) {
        self.dhKey = dhKey
        self.signingKey = signingKey
    }

    /// The published identity blob of these keys.
    public var publicIdentity: IdentityBlob {
        IdentityBlob(dhKey: dhKey.publicKey, signingKey: signingKey.publicKey)
    }

    /// The stored form, `0x01 || IK scalar(32) || SIG seed(32)`, for the key store to seal.
    public func serialized() -> SecretBytes {
        return SecretWireWriter.build(count: Self.storageLength) { encoder in
            encoder.write(Self.storageVersion)
            encoder.write(dhKey.rawRepresentation)
            encoder.write(signingKey.seed)
        }
    }

    /// Restores ``serialized()`` output.
    /// - Throws: ``ProtocolError/unsupportedVersion(_:value:)``,
    ///   ``ProtocolError/truncated(_:expected:actual:)`` or ``ProtocolError/trailingBytes(_:count:)``
    ///   at ``WireLocation/keyState``.
    public init(serialized: some ByteView) throws {
        self = try SecretWireReader.decode(serialized, location: .keyState) { reader in
            try reader.requireVersion(Self.storageVersion)
            let dh = try X25519.PrivateKey(rawRepresentation: reader.readSecret(X25519.keyLength))
            let signing = try Ed25519.PrivateKey(seed: reader.readSecret(Ed25519.seedLength))
            return IdentityKeyPair(dhKey: dh, signingKey: signing)
        }
    }

    /// Shows only the public identity.
    public var description: String { "IdentityKeyPair(public: \(publicIdentity.base64), private: <redacted>)" }
    /// Same as ``description``.
    public var debugDescription: String { description }
    /// No children: reflection must not reach the private keys.
    public var customMirror: Mirror { Mirror(self, children: [:]) }
}
