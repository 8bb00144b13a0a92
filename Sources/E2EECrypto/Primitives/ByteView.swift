/// Anything that can lend its bytes as one contiguous read-only buffer: `[UInt8]`,
/// `ArraySlice<UInt8>` and ``SecretBytes``. Primitives take their inputs as `some ByteView`
/// so secret and public bytes go through the same code without copies.
public protocol ByteView {
    /// Calls `body` with the bytes; the pointer must not escape `body`.
    func withByteView<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R
}

extension Array: ByteView where Element == UInt8 {
    /// Lends the array's storage.
    public func withByteView<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try withUnsafeBytes { try body($0) }
    }
}

extension ArraySlice: ByteView where Element == UInt8 {
    /// Lends the slice's storage.
    public func withByteView<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try withUnsafeBytes { try body($0) }
    }
}

extension SecretBytes: ByteView {
    /// Lends the secret storage.
    public func withByteView<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try withUnsafeBytes(body)
    }
}

extension UnsafeRawBufferPointer {
    /// The base address for a C call; a valid dummy address for empty buffers, which C APIs
    /// with a length of zero never read.
    var cBase: UnsafePointer<UInt8> {
        if let base = baseAddress { return base.assumingMemoryBound(to: UInt8.self) }
        return emptyByte
    }
}

extension UnsafeMutableRawBufferPointer {
    /// The base address for a C call writing into this buffer.
    var cBase: UnsafeMutablePointer<UInt8> {
        if let base = baseAddress { return base.assumingMemoryBound(to: UInt8.self) }
        return emptyMutableByte
    }
}

/// A byte that empty inputs point at, so that no C call ever receives a null pointer.
/// Never written by a C call (all lengths are zero when it is used).
private nonisolated(unsafe) let emptyMutableByte = UnsafeMutablePointer<UInt8>.allocate(capacity: 1)
private nonisolated(unsafe) let emptyByte = UnsafePointer<UInt8>(emptyMutableByte)

/// Checks that `bytes` has exactly `expected` bytes.
/// - Throws: ``CryptoError/invalidLength(_:expected:actual:)``.
func requireLength(_ bytes: UnsafeRawBufferPointer, _ expected: Int, _ field: CryptoField) throws {
    guard bytes.count == expected else {
        throw CryptoError.invalidLength(field, expected: expected, actual: bytes.count)
    }
}
