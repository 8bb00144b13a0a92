/// The 52-byte Double Ratchet header `ratchet_pub(32) || PN(u32) || N(u32) || nonce(12)`
/// (docs/spec/protocol.md §3.5).
///
/// The AES-256-GCM nonce is drawn at random when the message is encrypted and travels here, so
/// a chain position used twice — a store restored from an older copy — gives two unrelated
/// nonces under one key instead of one key and nonce for two plaintexts (§3.4).
public struct MessageHeader: Sendable, Hashable {
    /// The header's length in bytes.
    public static let length = 52
    /// The length of the AES-256-GCM nonce it carries.
    public static let nonceLength = 12

    /// The sender's current ratchet public key.
    public let ratchetKey: X25519.PublicKey
    /// `PN`: the number of messages in the sender's previous sending chain.
    public let previousCounter: UInt32
    /// `N`: this message's index in its sending chain.
    public let counter: UInt32
    /// The random AES-256-GCM nonce of this message (public).
    public let nonce: [UInt8]

    init(ratchetKey: X25519.PublicKey, previousCounter: UInt32, counter: UInt32, nonce: [UInt8]) {
        precondition(nonce.count == Self.nonceLength, "a ratchet nonce is 12 bytes")
        self.ratchetKey = ratchetKey
        self.previousCounter = previousCounter
        self.counter = counter
        self.nonce = nonce
    }

    /// Reads a header; the ratchet key must pass the received-key checks.
    init(reading reader: inout WireReader) throws {
        ratchetKey = try X25519.PublicKey.received(reader.readBytes(X25519.keyLength), at: .header)
        previousCounter = try reader.readUInt32()
        counter = try reader.readUInt32()
        nonce = try reader.readBytes(Self.nonceLength)
    }

    /// The 52 bytes.
    public var bytes: [UInt8] {
        var writer = WireWriter()
        writer.write(ratchetKey.rawRepresentation)
        writer.write(previousCounter)
        writer.write(counter)
        writer.write(nonce)
        return writer.bytes
    }
}
