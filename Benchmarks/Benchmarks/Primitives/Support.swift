import Benchmark
import BenchmarkSupport
import CSodium
import E2EECrypto

/// Inputs shared by every pair, made once before any benchmark runs.
struct Fixtures: Sendable {
    /// The input size where one applies.
    static let inputLength = 1024

    /// A 1 KiB message (deterministic, so runs compare).
    let message: [UInt8] = (0..<Fixtures.inputLength).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
    /// A second copy of `message` in its own storage (not a copy-on-write alias), so the
    /// constant-time compare reads two buffers as the direct version does.
    let messageCopy: [UInt8]
    /// 32 bytes of associated data, the size of a small message header.
    let associatedData: [UInt8] = (0..<32).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ 1) }
    /// A 32-byte symmetric key (HMAC, HKDF salt, AEAD keys).
    let key = SecretBytes.random(count: 32)
    /// HKDF's info string.
    let info: [UInt8] = Array("E2EECore bench HKDF info".utf8)
    /// Nonces for AES-256-GCM and XChaCha20-Poly1305.
    let gcmNonce = SystemRandom().bytes(count: AES256GCM.nonceLength)
    let xchachaNonce = SystemRandom().bytes(count: XChaCha20Poly1305.nonceLength)
    /// Signing key, and the X25519 key pair plus a peer.
    let signingKey = Ed25519.PrivateKey()
    let agreementKey = X25519.PrivateKey()
    let peerKey = X25519.PrivateKey()
    /// A 16-byte password and salt for Argon2id.
    let password: [UInt8] = Array("correct horse ba".utf8)
    let salt = SystemRandom().bytes(count: Argon2id.saltLength)

    init() {
        messageCopy = message.map { $0 }
    }
}

/// Registers a wrapper/direct pair, named "<primitive> wrapper" and "<primitive> direct".
/// Each body receives the benchmark and must call ``Benchmark/measureLoop(_:)`` after its own
/// setup, so setup is never measured.
func pair(
    _ primitive: String,
    wrapper: @escaping (Benchmark) throws -> Void,
    direct: @escaping (Benchmark) throws -> Void
) {
    Benchmark("\(primitive) wrapper") { benchmark in try wrapper(benchmark) }
    Benchmark("\(primitive) direct") { benchmark in try direct(benchmark) }
}

/// Registers a reference cost (not a pair), named "Cost: <what>", that helps explain a gap.
func cost(_ what: String, _ body: @escaping (Benchmark) throws -> Void) {
    Benchmark("Cost: \(what)") { benchmark in try body(benchmark) }
}
