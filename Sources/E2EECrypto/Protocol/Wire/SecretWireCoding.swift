/// Writes a binary structure straight into ``SecretBytes``, so serialised secret state never passes
/// through an ordinary array that would be released unwiped (``WireWriter`` grows an array).
struct SecretWireWriter {
    private let buffer: UnsafeMutableRawBufferPointer
    private(set) var offset = 0

    /// Builds exactly `count` bytes with `body`; a mismatch between `count` and what `body`
    /// writes is a programming error in this module.
    static func build(count: Int, _ body: (inout SecretWireWriter) -> Void) -> SecretBytes {
        SecretBytes(count: count) { buffer in
            var writer = SecretWireWriter(buffer: buffer)
            body(&writer)
            precondition(writer.offset == count, "serialised length does not match its computed size")
        }
    }

    private init(buffer: UnsafeMutableRawBufferPointer) {
        self.buffer = buffer
    }

    mutating func write(_ value: UInt8) {
        buffer[offset] = value
        offset += 1
    }

    mutating func write(_ value: UInt16) {
        write(UInt8(value >> 8))
        write(UInt8(truncatingIfNeeded: value))
    }

    mutating func write(_ value: UInt32) {
        for shift in stride(from: 24, through: 0, by: -8) { write(UInt8(truncatingIfNeeded: value >> UInt32(shift))) }
    }

    mutating func write(_ value: Int64) {
        let bits = UInt64(bitPattern: value)
        for shift in stride(from: 56, through: 0, by: -8) { write(UInt8(truncatingIfNeeded: bits >> UInt64(shift))) }
    }

    /// A flag byte: 1 for `true`, 0 for `false`.
    mutating func write(_ flag: Bool) { write(flag ? UInt8(1) : UInt8(0)) }

    /// `0` for `nil`, else `1 || value`.
    mutating func writeOptional(_ value: (some ByteView)?) {
        guard let value else { return write(false) }
        write(true)
        write(value)
    }

    mutating func write(_ bytes: some ByteView) {
        bytes.withByteView { source in
            UnsafeMutableRawBufferPointer(rebasing: buffer[offset..<(offset + source.count)]).copyMemory(from: source)
            offset += source.count
        }
    }
}

/// Reads a wire structure out of secret bytes without copying secret fields into ordinary
/// arrays: secret fields come out as ``SecretBytes``, public ones as `[UInt8]`.
struct SecretWireReader {
    private let bytes: SecretBytes
    private let location: WireLocation
    private(set) var offset = 0

    init(_ bytes: SecretBytes, location: WireLocation) {
        self.bytes = bytes
        self.location = location
    }

    var remainingCount: Int { bytes.count - offset }

    mutating func readUInt8() throws -> UInt8 {
        try require(1)
        defer { offset += 1 }
        return bytes.withUnsafeBytes { $0[offset] }
    }

    mutating func readUInt16() throws -> UInt16 { try readInteger() }

    mutating func readUInt32() throws -> UInt32 { try readInteger() }

    mutating func readInt64() throws -> Int64 { try readInteger() }

    /// A big-endian integer of `T`'s width, read in place.
    private mutating func readInteger<T: FixedWidthInteger>() throws -> T {
        let width = T.bitWidth / 8
        try require(width)
        let start = offset
        offset += width
        return bytes.withUnsafeBytes { raw in
            var value = T.zero
            for index in start..<(start + width) { value = value << 8 | T(truncatingIfNeeded: raw[index]) }
            return value
        }
    }

    /// `count` secret bytes.
    mutating func readSecret(_ count: Int) throws -> SecretBytes {
        try require(count)
        defer { offset += count }
        return bytes.slice(offset..<(offset + count))
    }

    /// `count` public bytes (ids, public keys).
    mutating func readPublic(_ count: Int) throws -> [UInt8] {
        try require(count)
        defer { offset += count }
        return bytes.withUnsafeBytes { Array($0[offset..<(offset + count)]) }
    }

    mutating func readUUID() throws -> WireUUID { try WireUUID(bytes: readPublic(16)) }

    /// A flag byte: 0 or 1.
    /// - Throws: ``ProtocolError/malformed(_:reason:)`` for any other value.
    mutating func readFlag() throws -> Bool {
        switch try readUInt8() {
        case 0: return false
        case 1: return true
        case let other: throw ProtocolError.malformed(location, reason: "flag byte \(other)")
        }
    }

    /// A 32-byte value behind a presence flag, as written by ``SecretWireWriter/writeOptional(_:)``.
    mutating func readOptional() throws -> SecretBytes? {
        try readFlag() ? try readSecret(32) : nil
    }

    /// The version byte of a stored form.
    /// - Throws: ``ProtocolError/unsupportedVersion(_:value:)`` unless it is `expected`.
    mutating func requireVersion(_ expected: UInt8) throws {
        let version = try readUInt8()
        guard version == expected else { throw ProtocolError.unsupportedVersion(location, value: version) }
    }

    /// Runs `body` over a reader of `serialized` and requires that it consumed everything. The
    /// bytes are read in place when they already are ``SecretBytes``, else copied into one.
    /// - Throws: whatever `body` throws, or ``ProtocolError/trailingBytes(_:count:)``.
    static func decode<T>(_ serialized: some ByteView, location: WireLocation, _ body: (inout SecretWireReader) throws -> T) throws -> T {
        let secret = serialized as? SecretBytes ?? serialized.withByteView { raw in
            SecretBytes(count: raw.count) { $0.copyMemory(from: raw) }
        }
        var reader = SecretWireReader(secret, location: location)
        let value = try body(&reader)
        try reader.requireEnd()
        return value
    }

    func requireEnd() throws {
        guard remainingCount == 0 else { throw ProtocolError.trailingBytes(location, count: remainingCount) }
    }

    private func require(_ count: Int) throws {
        guard count >= 0, remainingCount >= count else {
            throw ProtocolError.truncated(location, expected: offset + max(count, 0), actual: bytes.count)
        }
    }
}
