/// The public form of a one-time prekey: `0x01 || opk_id(u32) || OPK_pub(32)` (docs/spec/protocol.md §1).
public struct PublishedOneTimePrekey: Sendable, Hashable {
    /// The version byte.
    public static let version: UInt8 = PrekeyPublicForm.version
    /// The length in bytes.
    public static let length = PrekeyPublicForm.length

    /// `opk_id`, never 0.
    public let id: UInt32
    /// `OPK_pub`.
    public let publicKey: X25519.PublicKey

    /// Wraps a locally made key (no checks).
    public init(id: UInt32, publicKey: X25519.PublicKey) {
        self.id = id
        self.publicKey = publicKey
    }

    /// Parses the 37 bytes strictly.
    /// - Throws: at ``WireLocation/oneTimePrekey``: ``ProtocolError/truncated(_:expected:actual:)``,
    ///   ``ProtocolError/trailingBytes(_:count:)``, ``ProtocolError/unsupportedVersion(_:value:)``,
    ///   ``ProtocolError/malformed(_:reason:)`` for id 0, ``ProtocolError/invalidKey(_:)``.
    public init(bytes: [UInt8]) throws {
        (id, publicKey) = try PrekeyPublicForm.parse(bytes, at: .oneTimePrekey, idName: "opk_id")
    }

    /// Parses a published one-time prekey string.
    /// - Throws: base64 faults as ``ProtocolError/malformed(_:reason:)`` or
    ///   ``ProtocolError/limitExceeded(_:limit:actual:)``, else as ``init(bytes:)``.
    public init(base64: String) throws {
        try self.init(bytes: PublishedBase64.decode(base64, at: .oneTimePrekey))
    }

    /// The 37 bytes.
    public var bytes: [UInt8] {
        PrekeyPublicForm.encode(id: id, publicKey: publicKey)
    }

    /// The published string.
    public var base64: String { Base64.encode(bytes) }
}
