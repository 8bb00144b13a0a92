/// The public form of a signed prekey: `0x01 || spk_id(u32) || SPK_pub(32)`, 37 bytes
/// (docs/spec/protocol.md §1). Its signature covers ``signedMessage``.
public struct PublishedSignedPrekey: Sendable, Hashable {
    /// The version byte.
    public static let version: UInt8 = PrekeyPublicForm.version
    /// The length in bytes.
    public static let length = PrekeyPublicForm.length
    /// The label prefixed to the 37 bytes before signing.
    public static let signatureLabel = Array("e2ee-spk-v1".utf8)

    /// `spk_id`, never 0.
    public let id: UInt32
    /// `SPK_pub`.
    public let publicKey: X25519.PublicKey

    /// Wraps a locally made key (no checks).
    public init(id: UInt32, publicKey: X25519.PublicKey) {
        self.id = id
        self.publicKey = publicKey
    }

    /// Parses the 37 bytes strictly.
    /// - Throws: at ``WireLocation/signedPrekey``: ``ProtocolError/truncated(_:expected:actual:)``,
    ///   ``ProtocolError/trailingBytes(_:count:)``, ``ProtocolError/unsupportedVersion(_:value:)``,
    ///   ``ProtocolError/malformed(_:reason:)`` for id 0, ``ProtocolError/invalidKey(_:)``.
    public init(bytes: [UInt8]) throws {
        (id, publicKey) = try PrekeyPublicForm.parse(bytes, at: .signedPrekey, idName: "spk_id")
    }

    /// Parses the published `signed_pre_key` string.
    /// - Throws: base64 faults as ``ProtocolError/malformed(_:reason:)`` or
    ///   ``ProtocolError/limitExceeded(_:limit:actual:)``, else as ``init(bytes:)``.
    public init(base64: String) throws {
        try self.init(bytes: PublishedBase64.decode(base64, at: .signedPrekey))
    }

    /// The 37 bytes.
    public var bytes: [UInt8] {
        PrekeyPublicForm.encode(id: id, publicKey: publicKey)
    }

    /// The published `signed_pre_key` string.
    public var base64: String { Base64.encode(bytes) }

    /// What the identity signing key signs: `"e2ee-spk-v1" || bytes`.
    public var signedMessage: [UInt8] { Self.signatureLabel + bytes }
}
