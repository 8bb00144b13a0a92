/// The 40-byte Double Ratchet header `ratchet_pub(32) || PN(u32) || N(u32)` (docs/spec/protocol.md §3).
public struct MessageHeader: Sendable, Hashable {
    /// The header's length in bytes.
    public static let length = 40

    /// The sender's current ratchet public key.
    public let ratchetKey: X25519.PublicKey
    /// `PN`: the number of messages in the sender's previous sending chain.
    public let previousCounter: UInt32
    /// `N`: this message's index in its sending chain.
    public let counter: UInt32

    init(ratchetKey: X25519.PublicKey, previousCounter: UInt32, counter: UInt32) {
        self.ratchetKey = ratchetKey
        self.previousCounter = previousCounter
        self.counter = counter
    }

    /// Reads a header; the ratchet key must pass the received-key checks.
    init(reading reader: inout WireReader) throws {
        ratchetKey = try X25519.PublicKey.received(reader.readBytes(X25519.keyLength), at: .header)
        previousCounter = try reader.readUInt32()
        counter = try reader.readUInt32()
    }

    /// The 40 bytes.
    public var bytes: [UInt8] {
        var writer = WireWriter()
        writer.write(ratchetKey.rawRepresentation)
        writer.write(previousCounter)
        writer.write(counter)
        return writer.bytes
    }
}
