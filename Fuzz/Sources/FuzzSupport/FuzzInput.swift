/// Turns libFuzzer's raw input into the values a target needs.
public enum FuzzInput {
    /// A copy of the input bytes (libFuzzer may pass a null pointer for an empty input).
    public static func bytes(_ data: UnsafePointer<UInt8>?, _ size: Int) -> [UInt8] {
        guard let data, size > 0 else { return [] }
        return Array(UnsafeBufferPointer(start: data, count: size))
    }

    /// The first byte (choosing a variant of the target) and the rest; nil for an empty input.
    public static func selector(_ bytes: [UInt8]) -> (selector: UInt8, rest: [UInt8])? {
        guard let first = bytes.first else { return nil }
        return (first, Array(bytes.dropFirst()))
    }
}
