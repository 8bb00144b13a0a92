#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A seeded, reproducible ``RandomSource`` for protocol test vectors. **Never use it for real
/// keys**: anyone with the seed has every output.
///
/// Algorithm (simple to re-implement, e.g. in Python with `hmac`/`hashlib`): the output stream
/// is the concatenation of blocks `HMAC-SHA256(key = seed, message = "e2ee-drbg-v1" || u64be(i))`
/// for `i = 0, 1, 2, …`; each call to ``fill(_:)`` takes the next bytes of that stream, so the
/// outputs do not depend on how requests are split.
///
/// ```python
/// def stream(seed, n):
///     out, i = b"", 0
///     while len(out) < n:
///         out += hmac.new(seed, b"e2ee-drbg-v1" + i.to_bytes(8, "big"), hashlib.sha256).digest(); i += 1
///     return out[:n]
/// ```
///
/// It holds a pthread mutex rather than being an actor because `RandomSource.fill` is
/// synchronous; the mutex guards only the stream position.
public final class DeterministicRandom: RandomSource, @unchecked Sendable {
    /// The label before each block counter.
    public static let label = Array("e2ee-drbg-v1".utf8)

    private let seed: SecretBytes
    // Guarded by `mutex`: the position in the stream.
    private var counter: UInt64 = 0
    private var block: SecretBytes?
    private var used = 0
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>

    /// A generator for `seed` (any length; 32 bytes recommended).
    public init(seed: some ByteView) {
        self.seed = seed.withByteView { SecretBytes(copying: $0) }
        mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deinitialize(count: 1)
        mutex.deallocate()
    }

    /// Fills `buffer` with the next bytes of the stream.
    public func fill(_ buffer: UnsafeMutableRawBufferPointer) {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        var written = 0
        while written < buffer.count {
            let current = nextBlockIfNeeded()
            let take = min(current.count - used, buffer.count - written)
            current.withUnsafeBytes { raw in
                UnsafeMutableRawBufferPointer(rebasing: buffer[written..<(written + take)])
                    .copyMemory(from: UnsafeRawBufferPointer(rebasing: raw[used..<(used + take)]))
            }
            used += take
            written += take
        }
    }

    /// The current block, or the next one when it is used up.
    private func nextBlockIfNeeded() -> SecretBytes {
        if let block, used < block.count { return block }
        var index = [UInt8](repeating: 0, count: 8)
        for position in 0..<8 { index[position] = UInt8(truncatingIfNeeded: counter >> UInt64(56 - 8 * position)) }
        let next = HMACSHA256.authenticationCode(for: [Self.label, index], key: seed)
        counter &+= 1
        block = next
        used = 0
        return next
    }
}
