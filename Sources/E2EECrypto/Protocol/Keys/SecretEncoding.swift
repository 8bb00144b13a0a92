/// Builds the binary form of secret state. The buffer is reserved at its exact final size up
/// front, so no reallocation leaves an unwiped copy behind; ``finish()`` moves the bytes into
/// ``SecretBytes`` and wipes the array.
struct SecretEncoder {
    private var bytes: [UInt8] = []
    private let capacity: Int

    /// An encoder for exactly `capacity` bytes.
    init(capacity: Int) {
        self.capacity = capacity
        bytes.reserveCapacity(capacity)
    }

    mutating func append(_ value: UInt8) { bytes.append(value) }

    mutating func append(_ value: UInt32) {
        for shift in stride(from: 24, through: 0, by: -8) { bytes.append(UInt8(truncatingIfNeeded: value >> UInt32(shift))) }
    }

    mutating func append(_ value: Int64) {
        let raw = UInt64(bitPattern: value)
        for shift in stride(from: 56, through: 0, by: -8) { bytes.append(UInt8(truncatingIfNeeded: raw >> UInt64(shift))) }
    }

    mutating func append(_ flag: Bool) { bytes.append(flag ? 1 : 0) }

    mutating func append(contentsOf raw: some ByteView) {
        raw.withByteView { bytes.append(contentsOf: $0) }
    }

    /// The encoded bytes as a secret; the working array is wiped.
    mutating func finish() -> SecretBytes {
        assert(bytes.count == capacity, "SecretEncoder capacity must be exact")
        return SecretBytes(consuming: &bytes)
    }
}

enum SecretDecoding {
    /// Runs `body` over a reader of `serialized`, requires that it consumed everything, and
    /// wipes the working copy afterwards (the reader is gone by then, so the wipe is in place).
    /// - Throws: whatever `body` throws, or ``ProtocolError/trailingBytes(_:count:)``.
    static func decode<T>(_ serialized: some ByteView, location: WireLocation, _ body: (inout WireReader) throws -> T) throws -> T {
        var raw = serialized.withByteView { Array($0) }
        defer { secureWipe(&raw) }
        return try read(raw, location: location, body)
    }

    private static func read<T>(_ raw: [UInt8], location: WireLocation, _ body: (inout WireReader) throws -> T) throws -> T {
        var reader = WireReader(raw, location: location)
        let value = try body(&reader)
        try reader.requireEnd()
        return value
    }

    /// The version byte of a stored form.
    /// - Throws: ``ProtocolError/unsupportedVersion(_:value:)`` unless it is `expected`.
    static func requireVersion(_ reader: inout WireReader, _ expected: UInt8, at location: WireLocation) throws {
        let version = try reader.readUInt8()
        guard version == expected else { throw ProtocolError.unsupportedVersion(location, value: version) }
    }
}

extension WireReader {
    /// `count` bytes moved straight into ``SecretBytes`` (the intermediate array is wiped).
    mutating func readSecret(_ count: Int) throws -> SecretBytes {
        var raw = try readBytes(count)
        return SecretBytes(consuming: &raw)
    }

    /// A flag byte: 0 or 1.
    /// - Throws: ``ProtocolError/malformed(_:reason:)`` for any other value.
    mutating func readFlag(at location: WireLocation) throws -> Bool {
        switch try readUInt8() {
        case 0: return false
        case 1: return true
        case let other: throw ProtocolError.malformed(location, reason: "flag byte \(other)")
        }
    }

    /// A big-endian signed 64-bit integer (unix seconds).
    mutating func readInt64() throws -> Int64 {
        let raw = try readBytes(8)
        return Int64(bitPattern: raw.reduce(UInt64(0)) { $0 << 8 | UInt64($1) })
    }
}

extension SecretBytes {
    /// The concatenation of `parts` as one secret, with no intermediate array.
    static func concatenating(_ parts: [any ByteView]) -> SecretBytes {
        let total = parts.reduce(0) { sum, part in sum + part.withByteView { $0.count } }
        return SecretBytes(count: total) { out in
            var offset = 0
            for part in parts {
                part.withByteView { raw in
                    UnsafeMutableRawBufferPointer(rebasing: out[offset..<(offset + raw.count)]).copyMemory(from: raw)
                    offset += raw.count
                }
            }
        }
    }
}
