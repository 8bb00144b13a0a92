/// Reads big-endian fields from untrusted bytes; every read checks the remaining length first
/// and fails with ``ProtocolError/truncated(_:expected:actual:)`` naming the structure.
public struct WireReader {
    private let bytes: [UInt8]
    private let location: WireLocation
    /// The offset of the next unread byte.
    public private(set) var offset: Int

    /// Reads `bytes`, reporting errors against `location`.
    public init(_ bytes: [UInt8], location: WireLocation) {
        self.bytes = bytes
        self.location = location
        self.offset = 0
    }

    /// Bytes not yet read.
    public var remainingCount: Int { bytes.count - offset }

    /// One byte.
    public mutating func readUInt8() throws -> UInt8 {
        try require(1)
        defer { offset += 1 }
        return bytes[offset]
    }

    /// A big-endian `u16`.
    public mutating func readUInt16() throws -> UInt16 {
        let raw = try readBytes(2)
        return UInt16(raw[0]) << 8 | UInt16(raw[1])
    }

    /// A big-endian `u32`.
    public mutating func readUInt32() throws -> UInt32 {
        let raw = try readBytes(4)
        return raw.reduce(0) { $0 << 8 | UInt32($1) }
    }

    /// Exactly `count` bytes.
    public mutating func readBytes(_ count: Int) throws -> [UInt8] {
        try require(count)
        defer { offset += count }
        return Array(bytes[offset..<(offset + count)])
    }

    /// Everything not yet read.
    public mutating func readRemaining() -> [UInt8] {
        defer { offset = bytes.count }
        return Array(bytes[offset...])
    }

    /// Fails unless every byte has been read.
    /// - Throws: ``ProtocolError/trailingBytes(_:count:)``.
    public func requireEnd() throws {
        guard remainingCount == 0 else { throw ProtocolError.trailingBytes(location, count: remainingCount) }
    }

    private func require(_ count: Int) throws {
        guard count >= 0, remainingCount >= count else {
            throw ProtocolError.truncated(location, expected: offset + max(count, 0), actual: bytes.count)
        }
    }
}
