import CSodium

/// The one place that initialises libsodium.
///
/// `sodium_init()` must run before the random generator or the CPU-feature probes
/// (`crypto_aead_aes256gcm_is_available`) are used. Every entry point of this module that
/// needs it calls ``ensureInitialized()``; the work happens once per process.
enum Sodium {
    /// `true` once `sodium_init()` has succeeded (it returns 0 the first time, 1 afterwards).
    private static let initialized: Bool = sodium_init() >= 0

    /// Initialises libsodium on first use.
    /// - Throws: ``CryptoError/sodiumInitializationFailed`` when libsodium cannot start.
    static func ensureInitialized() throws {
        guard initialized else { throw CryptoError.sodiumInitializationFailed }
    }
}
