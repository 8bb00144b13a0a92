import E2EECrypto

extension WireWriter {
    /// `value` as the 4 big-endian bytes of a wire `u32`, for replays that build or patch wire
    /// structures by hand.
    public static func bytes(_ value: UInt32) -> [UInt8] {
        var writer = WireWriter()
        writer.write(value)
        return writer.bytes
    }
}
