/// A one-time prekey with its private key (docs/spec/protocol.md §1–§2). Its id comes from the device's
/// persisted counter; once consumed it stays usable for ``ProtocolLimits/oneTimePrekeyGraceSeconds``
/// (the server may hand it out again), then the store wipes it. Secret.
public struct OneTimePrekey: Sendable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    static let storageVersion: UInt8 = 0x01
    static let storageLength = 1 + 4 + X25519.keyLength + 1 + 8

    /// `opk_id`, never 0.
    public let id: UInt32
    /// The X25519 key pair.
    public let keyPair: X25519.PrivateKey
    /// When a prekey message first consumed it (unix seconds), or `nil` while unused.
    public let consumedAt: Int64?

    /// A new unconsumed one-time prekey with id `id`.
    /// - Throws: ``ProtocolError/malformed(_:reason:)`` when `id` is 0.
    public init(id: UInt32, using random: some RandomSource = SystemRandom()) throws {
        guard id != 0 else { throw ProtocolError.malformed(.oneTimePrekey, reason: "opk_id 0") }
        self.init(id: id, keyPair: X25519.PrivateKey(using: random), consumedAt: nil)
    }

    /// Restores a prekey from the key store's columns (the caller stored what this type made).
    public init(restoringID id: UInt32, keyPair: X25519.PrivateKey, consumedAt: Int64?) {
        self.init(id: id, keyPair: keyPair, consumedAt: consumedAt)
    }

    private init(id: UInt32, keyPair: X25519.PrivateKey, consumedAt: Int64?) {
        self.id = id
        self.keyPair = keyPair
        self.consumedAt = consumedAt
    }

    /// `count` new prekeys with ids `nextID, nextID + 1, …`; the caller persists
    /// `nextID + count` as its counter. Ids never wrap.
    /// - Throws: ``ProtocolError/malformed(_:reason:)`` when `nextID` is 0, `count` is negative,
    ///   or the ids would pass `UInt32.max`.
    public static func generate(count: Int, nextID: UInt32, using random: some RandomSource = SystemRandom()) throws -> [OneTimePrekey] {
        guard nextID != 0, count >= 0, UInt64(nextID) + UInt64(count) - 1 <= UInt64(UInt32.max) || count == 0 else {
            throw ProtocolError.malformed(.oneTimePrekey, reason: "id counter \(nextID) cannot issue \(count) ids")
        }
        return try (0..<count).map { try OneTimePrekey(id: nextID + UInt32($0), using: random) }
    }

    /// The public form.
    public var published: PublishedOneTimePrekey { PublishedOneTimePrekey(id: id, publicKey: keyPair.publicKey) }

    /// `true` when a prekey message may still use it at `now`: unconsumed, or consumed less than
    /// the grace window ago.
    public func isUsable(at now: Int64) -> Bool {
        guard let consumedAt else { return true }
        return now < consumedAt &+ ProtocolLimits.oneTimePrekeyGraceSeconds
    }

    /// This prekey marked consumed at `time` (an already consumed one keeps its first time).
    public func consumed(at time: Int64) -> OneTimePrekey {
        OneTimePrekey(id: id, keyPair: keyPair, consumedAt: consumedAt ?? time)
    }

    /// The stored form: `0x01 || id || scalar(32) || consumed flag || consumedAt(i64)`.
    public func serialized() -> SecretBytes {
        return SecretWireWriter.build(count: Self.storageLength) { encoder in
            encoder.write(Self.storageVersion)
            encoder.write(id)
            encoder.write(keyPair.rawRepresentation)
            encoder.write(consumedAt != nil)
            encoder.write(consumedAt ?? 0)
        }
    }

    /// Restores ``serialized()`` output.
    /// - Throws: at ``WireLocation/keyState``: ``ProtocolError/unsupportedVersion(_:value:)``,
    ///   ``ProtocolError/truncated(_:expected:actual:)``, ``ProtocolError/trailingBytes(_:count:)``,
    ///   ``ProtocolError/malformed(_:reason:)`` for id 0 or a bad flag.
    public init(serialized: some ByteView) throws {
        self = try SecretWireReader.decode(serialized, location: .keyState) { reader in
            try reader.requireVersion(Self.storageVersion)
            let id = try reader.readUInt32()
            guard id != 0 else { throw ProtocolError.malformed(.keyState, reason: "opk_id 0") }
            let keyPair = try X25519.PrivateKey(rawRepresentation: reader.readSecret(X25519.keyLength))
            let consumed = try reader.readFlag()
            let time = try reader.readInt64()
            guard consumed || time == 0 else { throw ProtocolError.malformed(.keyState, reason: "time without consumption") }
            return OneTimePrekey(id: id, keyPair: keyPair, consumedAt: consumed ? time : nil)
        }
    }

    /// Shows the id and state only.
    public var description: String {
        "OneTimePrekey(id: \(id), consumedAt: \(consumedAt.map(String.init) ?? "nil"), private: <redacted>)"
    }
    /// Same as ``description``.
    public var debugDescription: String { description }
    /// No children: reflection must not reach the private key.
    public var customMirror: Mirror { Mirror(self, children: [:]) }
}
