import E2EECrypto
@_spi(StoreInternals) import E2EEKeyStore

/// Fixed values targets share.
public enum FuzzFixtures {
    /// The all-zero UUID.
    public static let zeroUUID: WireUUID = {
        guard let uuid = try? WireUUID(bytes: [UInt8](repeating: 0, count: 16)) else { fatalError("16 bytes are a UUID") }
        return uuid
    }()

    /// A sealer under a fixed store key (so seeds sealed with it open).
    package static let sealer: Sealer = {
        guard let key = try? StoreKey(SecretBytes(copying: [UInt8](repeating: 0x42, count: 32))) else { fatalError("32 bytes are a store key") }
        return Sealer(key: key, random: DeterministicRandom(seed: [UInt8](repeating: 1, count: 32)))
    }()
}
