import CSodium

/// An immutable buffer of secret bytes that is wiped with `sodium_memzero` when released.
///
/// Use it for private keys, chain and message keys, shared secrets and decrypted plaintexts.
/// Its `description` never shows the contents, and `==` compares in constant time (for equal
/// lengths; the length itself is not secret).
public struct SecretBytes: Sendable, Equatable, CustomStringConvertible, CustomDebugStringConvertible {
    /// The heap storage; immutable after initialisation, wiped in `deinit`.
    private final class Storage: @unchecked Sendable {
        let buffer: UnsafeMutableRawBufferPointer

        init(count: Int) {
            buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: max(count, 0), alignment: 16)
            buffer.initializeMemory(as: UInt8.self, repeating: 0)
        }

        deinit {
            if let base = buffer.baseAddress { sodium_memzero(base, buffer.count) }
            buffer.deallocate()
        }
    }

    private let storage: Storage

    /// Creates a buffer of `count` bytes and lets `initializer` write them.
    ///
    /// If `initializer` throws, the partially written buffer is wiped and the error rethrown.
    public init(count: Int, initializer: (UnsafeMutableRawBufferPointer) throws -> Void) rethrows {
        let storage = Storage(count: count)
        try initializer(storage.buffer)
        self.storage = storage
    }

    /// Copies `bytes` into a new secret buffer. The caller remains responsible for wiping its copy.
    public init(copying bytes: some Sequence<UInt8>) {
        var array = Array(bytes)
        self.init(consuming: &array)
    }

    /// Copies the bytes of `source` into a new secret buffer, then wipes `source` and leaves it
    /// empty (for an array the caller no longer needs).
    public init(consuming source: inout [UInt8]) {
        let storage = Storage(count: source.count)
        source.withUnsafeBytes { storage.buffer.copyMemory(from: $0) }
        secureWipe(&source)
        self.storage = storage
    }

    /// `count` bytes from `random`.
    public static func random(count: Int, using random: some RandomSource = SystemRandom()) -> SecretBytes {
        SecretBytes(count: count) { random.fill($0) }
    }

    /// The number of bytes.
    public var count: Int { storage.buffer.count }

    /// Calls `body` with a read-only view of the bytes; do not let the pointer escape.
    public func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try body(UnsafeRawBufferPointer(storage.buffer))
    }

    /// A copy of a sub-range as new secret bytes.
    /// - Precondition: `range` lies within `0..<count` (programming error otherwise).
    public func slice(_ range: Range<Int>) -> SecretBytes {
        precondition(range.lowerBound >= 0 && range.upperBound <= count, "slice out of bounds")
        return SecretBytes(count: range.count) { destination in
            destination.copyMemory(from: UnsafeRawBufferPointer(rebasing: storage.buffer[range]))
        }
    }

    /// The bytes as an ordinary array, for handing to code that needs one (for instance a
    /// sealing routine). The array is not wiped automatically: prefer ``withUnsafeBytes(_:)``.
    public func unprotectedCopy() -> [UInt8] {
        Array(UnsafeRawBufferPointer(storage.buffer))
    }

    /// Constant-time equality for equal lengths; different lengths compare unequal.
    public static func == (lhs: SecretBytes, rhs: SecretBytes) -> Bool {
        lhs.withUnsafeBytes { a in rhs.withUnsafeBytes { b in ConstantTime.equals(a, b) } }
    }

    /// Never reveals the contents.
    public var description: String { "<redacted \(count) bytes>" }

    /// Never reveals the contents.
    public var debugDescription: String { description }
}
