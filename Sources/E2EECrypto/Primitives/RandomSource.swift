import CSodium

/// A source of random bytes, passed in wherever the protocol needs randomness so that tests and
/// published vectors can substitute a deterministic one.
public protocol RandomSource: Sendable {
    /// Fills `buffer` completely with random bytes.
    func fill(_ buffer: UnsafeMutableRawBufferPointer)
}

extension RandomSource {
    /// `count` random bytes as an array (for public values such as nonces and ids).
    public func bytes(count: Int) -> [UInt8] {
        [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            fill(UnsafeMutableRawBufferPointer(buffer))
            initialized = count
        }
    }

    /// A random `UInt32`.
    public func uint32() -> UInt32 {
        var value: UInt32 = 0
        withUnsafeMutableBytes(of: &value) { fill($0) }
        return value
    }
}

/// The operating system's cryptographic random generator, through libsodium's `randombytes_buf`.
public struct SystemRandom: RandomSource {
    /// Creates the system random source.
    public init() {}

    /// Fills `buffer` from `randombytes_buf`.
    public func fill(_ buffer: UnsafeMutableRawBufferPointer) {
        // randombytes_buf itself never fails; sodium_init only selects the implementation.
        _ = try? Sodium.ensureInitialized()
        guard let base = buffer.baseAddress, buffer.count > 0 else { return }
        randombytes_buf(base, buffer.count)
    }
}
