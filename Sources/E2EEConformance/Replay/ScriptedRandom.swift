import E2EECrypto

/// A ``RandomSource`` that hands out exactly the given bytes and then zeros, remembering how
/// many were asked for (the replay checks a DH step drew exactly `newRatchetPrivate`).
public final class ScriptedRandom: RandomSource, @unchecked Sendable {
    private var queue: [UInt8]
    /// How many bytes were requested in total.
    public private(set) var requested = 0

    /// A source that yields `bytes` first.
    public init(_ bytes: [UInt8]) { queue = bytes }

    /// Fills from the script (zeros once it is used up; ``requested`` shows the overrun).
    public func fill(_ buffer: UnsafeMutableRawBufferPointer) {
        for index in 0..<buffer.count {
            buffer[index] = queue.isEmpty ? 0 : queue.removeFirst()
        }
        requested += buffer.count
    }
}
