/// A signed prekey with its private key (docs/spec/protocol.md §1): a non-zero random id, an X25519
/// pair, the identity's signature over its record with the zero certificate, and its creation
/// time. Secret. A device that publishes a certificate signs that record afresh
/// (``SignedPrekeyRecord/signature(by:)``).
public struct SignedPrekey: Sendable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    static let storageVersion: UInt8 = 0x01
    static let storageLength = 1 + 4 + X25519.keyLength + Ed25519.signatureLength + 8

    /// `spk_id`, never 0.
    public let id: UInt32
    /// The X25519 key pair.
    public let keyPair: X25519.PrivateKey
    /// Ed25519(SIG, `"e2ee-spk-v2" || ``published``)`: the signature of the record with the zero
    /// certificate.
    public let signature: [UInt8]
    /// Creation time, unix seconds (rotation is due ``ProtocolLimits/signedPrekeyRotationSeconds`` later).
    public let createdAt: Int64

    /// A new signed prekey with id `id`, signed by `identity`.
    /// - Throws: ``ProtocolError/malformed(_:reason:)`` when `id` is 0.
    public init(id: UInt32, identity: IdentityKeyPair, createdAt: Int64, using random: some RandomSource = SystemRandom()) throws {
        guard id != 0 else { throw ProtocolError.malformed(.signedPrekey, reason: "spk_id 0") }
        let keyPair = X25519.PrivateKey(using: random)
        let published = SignedPrekeyRecord(id: id, publicKey: keyPair.publicKey)
        self.init(id: id, keyPair: keyPair, signature: published.signature(by: identity), createdAt: createdAt)
    }

    /// A new signed prekey whose random non-zero id differs from every id in `retainedIDs`.
    /// - Throws: never in practice (ids are drawn until one is free); as ``init(id:identity:createdAt:using:)``.
    public static func generate(identity: IdentityKeyPair, retainedIDs: Set<UInt32>, createdAt: Int64,
                                using random: some RandomSource = SystemRandom()) throws -> SignedPrekey {
        var id: UInt32 = 0
        while id == 0 || retainedIDs.contains(id) { id = random.uint32() }
        return try SignedPrekey(id: id, identity: identity, createdAt: createdAt, using: random)
    }

    /// Restores a prekey from the key store's columns (the caller stored what this type made).
    public init(restoringID id: UInt32, keyPair: X25519.PrivateKey, signature: [UInt8], createdAt: Int64) {
        self.init(id: id, keyPair: keyPair, signature: signature, createdAt: createdAt)
    }

    private init(id: UInt32, keyPair: X25519.PrivateKey, signature: [UInt8], createdAt: Int64) {
        self.id = id
        self.keyPair = keyPair
        self.signature = signature
        self.createdAt = createdAt
    }

    /// The record with the zero certificate (`signed_pre_key` of a device not linked).
    public var published: SignedPrekeyRecord { SignedPrekeyRecord(id: id, publicKey: keyPair.publicKey) }

    /// The record carrying `certificate`, to be signed by the identity (``SignedPrekeyRecord/signature(by:)``).
    public func record(certificate: DeviceCertificate) -> SignedPrekeyRecord {
        SignedPrekeyRecord(id: id, publicKey: keyPair.publicKey, certificate: certificate)
    }

    /// The published `signed_pre_key_signature` string of ``published``.
    public var signatureBase64: String { Base64.encode(signature) }

    /// The stored form: `0x01 || id || scalar(32) || signature(64) || createdAt(i64)`.
    public func serialized() -> SecretBytes {
        return SecretWireWriter.build(count: Self.storageLength) { encoder in
            encoder.write(Self.storageVersion)
            encoder.write(id)
            encoder.write(keyPair.rawRepresentation)
            encoder.write(signature)
            encoder.write(createdAt)
        }
    }

    /// Restores ``serialized()`` output.
    /// - Throws: at ``WireLocation/keyState``: ``ProtocolError/unsupportedVersion(_:value:)``,
    ///   ``ProtocolError/truncated(_:expected:actual:)``, ``ProtocolError/trailingBytes(_:count:)``,
    ///   ``ProtocolError/malformed(_:reason:)`` for id 0.
    public init(serialized: some ByteView) throws {
        self = try SecretWireReader.decode(serialized, location: .keyState) { reader in
            try reader.requireVersion(Self.storageVersion)
            let id = try reader.readUInt32()
            guard id != 0 else { throw ProtocolError.malformed(.keyState, reason: "spk_id 0") }
            let keyPair = try X25519.PrivateKey(rawRepresentation: reader.readSecret(X25519.keyLength))
            let signature = try reader.readPublic(Ed25519.signatureLength)
            return SignedPrekey(id: id, keyPair: keyPair, signature: signature, createdAt: try reader.readInt64())
        }
    }

    /// Shows the id only.
    public var description: String { "SignedPrekey(id: \(id), private: <redacted>)" }
    /// Same as ``description``.
    public var debugDescription: String { description }
    /// No children: reflection must not reach the private key.
    public var customMirror: Mirror { Mirror(self, children: [:]) }
}
