import E2EECrypto

/// A concrete ``RandomSource`` around any source, for the protocol's generic APIs (the
/// messaging layer is configured with a source chosen at run time: the system's, or a
/// deterministic one in tests).
struct AnyRandomSource: RandomSource {
    let base: any RandomSource

    func fill(_ buffer: UnsafeMutableRawBufferPointer) {
        base.fill(buffer)
    }
}
