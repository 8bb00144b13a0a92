/// Builds big-endian wire structures.
public struct WireWriter {
    /// The bytes written so far.
    public private(set) var bytes: [UInt8] = []

    /// An empty writer.
    public init() {}

    /// Appends one byte.
    public mutating func write(_ value: UInt8) { bytes.append(value) }

    /// Appends a big-endian `u16`.
    public mutating func write(_ value: UInt16) {
        bytes.append(UInt8(value >> 8))
        bytes.append(UInt8(truncatingIfNeeded: value))
    }

    /// Appends a big-endian `u32`.
    public mutating func write(_ value: UInt32) {
        for shift in stride(from: 24, through: 0, by: -8) { bytes.append(UInt8(truncatingIfNeeded: value >> UInt32(shift))) }
    }

    /// Appends raw bytes.
    public mutating func write(_ raw: some Sequence<UInt8>) { bytes.append(contentsOf: raw) }
}
