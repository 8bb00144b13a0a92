import Benchmark
import CSodium
import E2EECrypto

/// Why a direct call failed during a benchmark (a bug in the benchmark, never expected).
public struct DirectCallFailed: Error {
    /// The C function that returned an error.
    public let function: String

    /// Names the failing C function.
    public init(function: String) {
        self.function = function
    }
}

extension Benchmark {
    /// Runs `operation` once per scaled iteration (once per sample in these suites) inside the
    /// measured region, and only there.
    @inline(__always)
    public func measureLoop(_ operation: () throws -> Void) rethrows {
        startMeasurement()
        for _ in scaledIterations {
            try operation()
        }
        stopMeasurement()
    }
}

/// A C buffer for the direct calls, allocated before measurement, wiped (it may hold a copy of
/// a key) and freed after.
public final class CBuffer {
    /// The first byte.
    public let pointer: UnsafeMutablePointer<UInt8>
    /// The length in bytes.
    public let count: Int

    /// `count` zero bytes.
    public init(count: Int) {
        self.count = count
        pointer = .allocate(capacity: max(count, 1))
        pointer.initialize(repeating: 0, count: max(count, 1))
    }

    /// A copy of `bytes`.
    public convenience init(copying bytes: [UInt8]) {
        self.init(count: bytes.count)
        bytes.withUnsafeBufferPointer { source in
            if let base = source.baseAddress { pointer.update(from: base, count: bytes.count) }
        }
    }

    /// A copy of a secret (wiped again on release).
    public convenience init(copying secret: SecretBytes) {
        self.init(count: secret.count)
        secret.withUnsafeBytes { source in
            if let base = source.baseAddress { UnsafeMutableRawPointer(pointer).copyMemory(from: base, byteCount: source.count) }
        }
    }

    /// The same bytes, read-only.
    public var readOnly: UnsafePointer<UInt8> { UnsafePointer(pointer) }

    /// The bytes as an array (for checks outside the measured region).
    public var bytes: [UInt8] { Array(UnsafeBufferPointer(start: pointer, count: count)) }

    deinit {
        sodium_memzero(pointer, max(count, 1))
        pointer.deallocate()
    }
}

/// A value carried from one sample to the next (a chain position, a store), and from a
/// benchmark's setup to its samples. The benchmark runner calls a benchmark's closures one at a
/// time, never concurrently.
public final class Carried<Value> {
    /// The current value.
    public var value: Value

    /// Starts with `value`.
    public init(_ value: Value) {
        self.value = value
    }
}
