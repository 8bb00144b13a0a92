import CSodium

/// Argon2id (RFC 9106, version 0x13) password hashing to a key, through libsodium's
/// `crypto_pwhash`. libsodium fixes parallelism to 1 and the salt to 16 bytes.
public enum Argon2id {
    /// Salt length in bytes.
    public static let saltLength = Int(crypto_pwhash_SALTBYTES)

    /// Cost parameters, stored beside the salt so a key can be derived again.
    public struct Parameters: Sendable, Hashable, Codable {
        /// Passes over memory (libsodium's `opslimit`), at least 1.
        public var iterations: UInt64
        /// Memory in KiB (libsodium's `memlimit` / 1024), at least 8.
        public var memoryKiB: UInt64

        /// Creates parameters; they are checked when used.
        public init(iterations: UInt64, memoryKiB: UInt64) {
            self.iterations = iterations
            self.memoryKiB = memoryKiB
        }

        /// libsodium's "moderate" profile (3 passes, 256 MiB): for unlocking a key store.
        public static let moderate = Parameters(
            iterations: UInt64(crypto_pwhash_argon2id_OPSLIMIT_MODERATE),
            memoryKiB: UInt64(crypto_pwhash_argon2id_MEMLIMIT_MODERATE) / 1024
        )

        /// libsodium's "interactive" profile (2 passes, 64 MiB).
        public static let interactive = Parameters(
            iterations: UInt64(crypto_pwhash_argon2id_OPSLIMIT_INTERACTIVE),
            memoryKiB: UInt64(crypto_pwhash_argon2id_MEMLIMIT_INTERACTIVE) / 1024
        )
    }

    /// Bounds that libsodium accepts for the output length.
    public static let outputLengthRange = Int(crypto_pwhash_BYTES_MIN)...Int(min(crypto_pwhash_bytes_max(), Int(Int32.max)))

    /// Derives `outputLength` bytes from `password` and a 16-byte `salt`.
    /// - Throws: ``CryptoError/invalidLength(_:expected:actual:)`` for the salt,
    ///   ``CryptoError/invalidPasswordHashParameters(reason:)`` for parameters or output length
    ///   outside libsodium's bounds, ``CryptoError/passwordHashingFailed`` when it cannot run
    ///   (typically the memory cannot be allocated).
    public static func deriveKey(password: some ByteView, salt: some ByteView, parameters: Parameters, outputLength: Int = 32) throws -> SecretBytes {
        try Sodium.ensureInitialized()
        try validate(parameters, outputLength: outputLength)
        let (memoryBytes, overflow) = parameters.memoryKiB.multipliedReportingOverflow(by: 1024)
        guard !overflow, memoryBytes <= UInt64(crypto_pwhash_argon2id_memlimit_max()) else {
            throw CryptoError.invalidPasswordHashParameters(reason: "memory above libsodium's maximum")
        }
        return try salt.withByteView { s in
            try requireLength(s, saltLength, .salt)
            return try password.withByteView { p in
                try SecretBytes(count: outputLength) { out in
                    let status = crypto_pwhash(
                        out.cBase, UInt64(outputLength),
                        UnsafeRawPointer(p.cBase).assumingMemoryBound(to: CChar.self),
                        UInt64(p.count), s.cBase,
                        parameters.iterations, Int(memoryBytes), crypto_pwhash_ALG_ARGON2ID13
                    )
                    guard status == 0 else { throw CryptoError.passwordHashingFailed }
                }
            }
        }
    }

    private static func validate(_ parameters: Parameters, outputLength: Int) throws {
        guard outputLengthRange.contains(outputLength) else {
            throw CryptoError.invalidPasswordHashParameters(reason: "output length \(outputLength) outside \(outputLengthRange)")
        }
        guard parameters.iterations >= UInt64(crypto_pwhash_argon2id_OPSLIMIT_MIN),
              parameters.iterations <= UInt64(crypto_pwhash_argon2id_opslimit_max()) else {
            throw CryptoError.invalidPasswordHashParameters(reason: "iterations \(parameters.iterations) outside libsodium's range")
        }
        guard parameters.memoryKiB >= UInt64(crypto_pwhash_argon2id_MEMLIMIT_MIN) / 1024 else {
            throw CryptoError.invalidPasswordHashParameters(reason: "memory \(parameters.memoryKiB) KiB below libsodium's minimum of 8 KiB")
        }
    }
}
