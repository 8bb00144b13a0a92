/// A content hash (SHA-256, 32 bytes) as four machine words, for the in-memory sets a batch
/// keeps of the envelopes it has seen: hashed and compared as four `UInt64`s rather than as an
/// array of 32 bytes fed to the hasher one at a time.
struct ContentDigest: Hashable, Sendable {
    private let words: (UInt64, UInt64, UInt64, UInt64)

    /// The digest of `hash`, a SHA-256 output (32 bytes; only the first 32 bytes count, and a
    /// shorter array is zero-padded — neither occurs for a SHA-256 output).
    init(_ hash: [UInt8]) {
        var padded = (UInt64(0), UInt64(0), UInt64(0), UInt64(0))
        withUnsafeMutableBytes(of: &padded) { target in
            hash.withUnsafeBytes { source in
                target.copyMemory(from: UnsafeRawBufferPointer(rebasing: source.prefix(32)))
            }
        }
        words = padded
    }

    static func == (lhs: ContentDigest, rhs: ContentDigest) -> Bool {
        lhs.words.0 == rhs.words.0 && lhs.words.1 == rhs.words.1 && lhs.words.2 == rhs.words.2 && lhs.words.3 == rhs.words.3
    }

    func hash(into hasher: inout Hasher) {
        hasher.combine(words.0)
        hasher.combine(words.1)
        hasher.combine(words.2)
        hasher.combine(words.3)
    }
}
