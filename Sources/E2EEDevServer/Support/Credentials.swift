import E2EECrypto
import Foundation

/// Opaque tokens and password hashes. The dev server stores only SHA-256 digests of tokens and
/// tickets; passwords are hashed as SHA-256(salt ‖ password) with a 16-byte random salt — fast
/// on purpose, because this is a test server and never holds a real password.
enum Credentials {
    /// A new random token: 32 bytes as lowercase hex.
    static func newToken() -> String {
        SystemRandom().bytes(count: 32).map { byte in
            let digits = Array("0123456789abcdef")
            return String([digits[Int(byte >> 4)], digits[Int(byte & 0x0f)]])
        }.joined()
    }

    /// The digest a token is stored and looked up under.
    static func digest(_ token: String) -> Data {
        Data(SHA256.hash(utf8: token))
    }

    /// A new random salt.
    static func newSalt() -> Data { Data(SystemRandom().bytes(count: 16)) }

    /// SHA-256(salt ‖ password); the intermediate buffer is wiped.
    static func passwordHash(_ password: String, salt: Data) -> Data {
        var input = Array(salt) + Array(password.utf8)
        defer { secureWipe(&input) }
        return Data(SHA256.hash(input))
    }

    /// Constant-time check of `password` against a stored hash.
    static func verify(_ password: String, salt: Data, hash: Data) -> Bool {
        var candidate = Array(passwordHash(password, salt: salt))
        defer { secureWipe(&candidate) }
        return ConstantTime.equals(candidate, Array(hash))
    }
}
