import Foundation

/// A content hash (SHA-256, 32 bytes) as four machine words: the key of the sets and
/// dictionaries a received batch keeps of envelopes (the plan's envelopes seen earlier in the
/// batch, the store's first id per stored envelope). Hashed and compared as four `UInt64`s,
/// where an array of 32 bytes is fed to the hasher one byte at a time.
package struct ContentDigest: Hashable, Sendable {
    /// The hash's bytes in order, as native words (the memory is the 32 bytes themselves).
    private let words: (UInt64, UInt64, UInt64, UInt64)

    /// The digest of `hash`, a SHA-256 output. Only the first 32 bytes count, and a shorter
    /// input is zero-padded; neither occurs for a SHA-256 output or a stored `content_hash`,
    /// which the schema holds to 32 bytes.
    package init(_ hash: some ContiguousBytes) {
        var padded = (UInt64(0), UInt64(0), UInt64(0), UInt64(0))
        withUnsafeMutableBytes(of: &padded) { target in
            hash.withUnsafeBytes { source in target.copyMemory(from: UnsafeRawBufferPointer(rebasing: source.prefix(32))) }
        }
        words = padded
    }

    /// The 32 bytes.
    package var bytes: [UInt8] {
        withUnsafeBytes(of: words) { Array($0) }
    }

    /// The first `count` bytes (at most 32): what the store's prefix index holds.
    package func prefix(_ count: Int) -> Data {
        withUnsafeBytes(of: words) { Data($0.prefix(count)) }
    }

    package static func == (lhs: ContentDigest, rhs: ContentDigest) -> Bool {
        lhs.words.0 == rhs.words.0 && lhs.words.1 == rhs.words.1 && lhs.words.2 == rhs.words.2 && lhs.words.3 == rhs.words.3
    }

    package func hash(into hasher: inout Hasher) {
        hasher.combine(words.0)
        hasher.combine(words.1)
        hasher.combine(words.2)
        hasher.combine(words.3)
    }
}
