import E2EECrypto
import Foundation

/// Random nonces drawn from a `RandomSource` a block at a time: one system call serves 170
/// nonces instead of one each (a batch of decryptions seals two values per message). Nonces
/// are public; only their uniqueness matters, which 192 random bits give.
final class NonceSource: @unchecked Sendable {
    /// Bytes fetched per refill.
    static let blockLength = 24 * 170

    private let random: any RandomSource
    private let lock = NSLock()
    // Guarded by `lock`.
    private var block: [UInt8] = []
    private var offset = 0

    init(random: any RandomSource) {
        self.random = random
    }

    /// The next `count` random bytes (`count` ≤ ``blockLength``).
    func next(_ count: Int) -> [UInt8] {
        lock.lock()
        defer { lock.unlock() }
        if block.isEmpty || offset + count > block.count {
            block = random.bytes(count: Swift.max(Self.blockLength, count))
            offset = 0
        }
        let nonce = Array(block[offset..<(offset + count)])
        offset += count
        return nonce
    }
}
