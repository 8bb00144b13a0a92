import E2EECrypto
import E2EETestSupport
import Testing

@Suite("SecretBytes")
struct SecretBytesTests {
    @Test("description never shows the contents")
    func descriptionIsRedacted() {
        let secret = SecretBytes(copying: Array(repeating: 0xAB, count: 32))
        for text in [secret.description, secret.debugDescription, "\(secret)", String(reflecting: secret)] {
            #expect(!text.lowercased().contains("abab"))
            #expect(!text.contains("171"))
        }
        #expect(secret.description == "<redacted 32 bytes>")
    }

    @Test("private keys never print their bytes")
    func privateKeysAreRedacted() throws {
        let seed = SecretBytes(copying: Array(repeating: 0x5A, count: 32))
        let signing = try Ed25519.PrivateKey(seed: seed)
        let agreement = try X25519.PrivateKey(rawRepresentation: seed)
        for text in ["\(signing)", String(reflecting: signing), "\(agreement)", String(reflecting: agreement)] {
            #expect(!text.lowercased().contains("5a5a"))
            #expect(!text.contains("90, 90"))
        }
    }

    @Test("equality is by content, and different lengths differ")
    func equality() {
        let a = SecretBytes(copying: [1, 2, 3])
        #expect(a == SecretBytes(copying: [1, 2, 3]))
        #expect(a != SecretBytes(copying: [1, 2, 4]))
        #expect(a != SecretBytes(copying: [1, 2]))
        #expect(SecretBytes(copying: []) == SecretBytes(copying: []))
    }

    @Test("consuming an array wipes and empties it")
    func consumingWipesSource() {
        var source: [UInt8] = [9, 8, 7, 6]
        let secret = SecretBytes(consuming: &source)
        #expect(source.isEmpty)
        #expect(secret.unprotectedCopy() == [9, 8, 7, 6])
    }

    @Test("a failing initializer propagates its error")
    func failingInitializer() {
        struct Boom: Error {}
        #expect(throws: Boom.self) {
            _ = try SecretBytes(count: 8) { _ in throw Boom() }
        }
    }

    @Test("slices copy the requested range")
    func slices() {
        let secret = SecretBytes(copying: Array(0..<44))
        #expect(secret.slice(0..<32).unprotectedCopy() == Array(0..<32))
        #expect(secret.slice(32..<44).unprotectedCopy() == Array(32..<44))
    }

    @Test("secureWipe empties an array")
    func wipe() {
        var bytes: [UInt8] = [1, 2, 3]
        secureWipe(&bytes)
        #expect(bytes.isEmpty)
    }

    @Test("constant-time comparison")
    func constantTime() {
        #expect(ConstantTime.equals([1, 2, 3], [1, 2, 3]))
        #expect(!ConstantTime.equals([1, 2, 3], [1, 2, 0]))
        #expect(!ConstantTime.equals([1, 2, 3], [1, 2]))
        #expect(ConstantTime.equals([], []))
    }

    @Test("random bytes differ between draws")
    func randomDraws() {
        let a = SecretBytes.random(count: 32)
        let b = SecretBytes.random(count: 32)
        #expect(a != b)
        #expect(SystemRandom().bytes(count: 16).count == 16)
    }
}
