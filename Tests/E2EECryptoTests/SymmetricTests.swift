import E2EECrypto
import Testing

@Suite("AEADs")
struct AEADTests {
    let key = SecretBytes.random(count: 32)

    @Test("AES-256-GCM is available on this machine")
    func aesAvailable() throws {
        try AES256GCM.requireAvailable()
        #expect(AES256GCM.isAvailable)
    }

    @Test("AES-256-GCM: any altered byte is refused with a typed error")
    func aesTamper() throws {
        let nonce = SystemRandom().bytes(count: 12)
        let sealed = try AES256GCM.seal(Array("hello".utf8), key: key, nonce: nonce, authenticating: [1, 2])
        #expect(try AES256GCM.open(sealed, key: key, nonce: nonce, authenticating: [1, 2]).unprotectedCopy() == Array("hello".utf8))
        for index in sealed.indices {
            var altered = sealed
            altered[index] ^= 0x80
            #expect(throws: CryptoError.authenticationFailed) { try AES256GCM.open(altered, key: key, nonce: nonce, authenticating: [1, 2]) }
        }
        #expect(throws: CryptoError.authenticationFailed) { try AES256GCM.open(sealed, key: key, nonce: nonce, authenticating: [1, 3]) }
        #expect(throws: CryptoError.lengthOutOfRange(.ciphertext, minimum: 16, maximum: Int.max, actual: 15)) {
            try AES256GCM.open(Array(sealed.prefix(15)), key: key, nonce: nonce, authenticating: [UInt8]())
        }
        #expect(throws: CryptoError.invalidLength(.nonce, expected: 12, actual: 24)) {
            try AES256GCM.seal([UInt8](), key: key, nonce: [UInt8](repeating: 0, count: 24), authenticating: [UInt8]())
        }
        #expect(throws: CryptoError.invalidLength(.key, expected: 32, actual: 16)) {
            try AES256GCM.seal([UInt8](), key: [UInt8](repeating: 0, count: 16), nonce: nonce, authenticating: [UInt8]())
        }
    }

    @Test("XChaCha20-Poly1305: round trip, tamper and wrong key")
    func xchacha() throws {
        let nonce = SystemRandom().bytes(count: 24)
        let sealed = try XChaCha20Poly1305.seal(key, key: key, nonce: nonce, authenticating: Array("table.column.row".utf8))
        #expect(try XChaCha20Poly1305.open(sealed, key: key, nonce: nonce, authenticating: Array("table.column.row".utf8)) == key)
        #expect(throws: CryptoError.authenticationFailed) {
            try XChaCha20Poly1305.open(sealed, key: key, nonce: nonce, authenticating: Array("table.column.other".utf8))
        }
        #expect(throws: CryptoError.authenticationFailed) {
            try XChaCha20Poly1305.open(sealed, key: SecretBytes.random(count: 32), nonce: nonce, authenticating: Array("table.column.row".utf8))
        }
        #expect(throws: CryptoError.invalidLength(.nonce, expected: 24, actual: 12)) {
            try XChaCha20Poly1305.seal([UInt8](), key: key, nonce: [UInt8](repeating: 0, count: 12), authenticating: [UInt8]())
        }
    }
}

@Suite("HKDF and HMAC")
struct DerivationTests {
    @Test("HKDF output bounds are typed errors")
    func hkdfBounds() throws {
        #expect(try HKDF.deriveKey(inputKeyMaterial: [UInt8](repeating: 1, count: 32), salt: [UInt8](), info: [UInt8](), outputLength: 8160).count == 8160)
        #expect(throws: CryptoError.lengthOutOfRange(.outputLength, minimum: 0, maximum: 8160, actual: 8161)) {
            try HKDF.deriveKey(inputKeyMaterial: [UInt8](), salt: [UInt8](), info: [UInt8](), outputLength: 8161)
        }
        #expect(throws: CryptoError.self) {
            try HKDF.expand(pseudoRandomKey: [UInt8](repeating: 1, count: 16), info: [UInt8](), outputLength: 32)
        }
    }

    @Test("an empty salt equals 32 zero bytes (RFC 5869 §2.2)")
    func emptySalt() throws {
        let ikm = [UInt8](repeating: 0x0b, count: 22)
        let a = try HKDF.deriveKey(inputKeyMaterial: ikm, salt: [UInt8](), info: [UInt8](), outputLength: 42)
        let b = try HKDF.deriveKey(inputKeyMaterial: ikm, salt: [UInt8](repeating: 0, count: 32), info: [UInt8](), outputLength: 42)
        #expect(a == b)
    }

    @Test("HMAC over parts equals HMAC over their concatenation")
    func hmacParts() {
        let key = [UInt8](repeating: 3, count: 70)
        let whole = HMACSHA256.authenticationCode(for: [1, 2, 3, 4, 5] as [UInt8], key: key)
        let parts = HMACSHA256.authenticationCode(for: [[1, 2] as [UInt8], [] as [UInt8], [3, 4, 5] as [UInt8]], key: key)
        #expect(whole == parts)
        let tag = whole.unprotectedCopy()
        #expect(HMACSHA256.isValid(tag: tag, for: [1, 2, 3, 4, 5] as [UInt8], key: key))
        #expect(HMACSHA256.isValid(tag: Array(tag.prefix(16)), for: [1, 2, 3, 4, 5] as [UInt8], key: key))
        #expect(!HMACSHA256.isValid(tag: Array(tag.prefix(15)), for: [1, 2, 3, 4, 5] as [UInt8], key: key))
        #expect(!HMACSHA256.isValid(tag: tag, for: [1, 2, 3, 4, 6] as [UInt8], key: key))
    }
}

@Suite("Argon2id")
struct Argon2idTests {
    let small = Argon2id.Parameters(iterations: 1, memoryKiB: 64)

    @Test("same inputs give the same key; salt and password matter")
    func deterministic() throws {
        let salt = [UInt8](repeating: 1, count: 16)
        let a = try Argon2id.deriveKey(password: Array("pw".utf8), salt: salt, parameters: small)
        #expect(a == (try Argon2id.deriveKey(password: Array("pw".utf8), salt: salt, parameters: small)))
        #expect(a != (try Argon2id.deriveKey(password: Array("pX".utf8), salt: salt, parameters: small)))
        #expect(a != (try Argon2id.deriveKey(password: Array("pw".utf8), salt: [UInt8](repeating: 2, count: 16), parameters: small)))
    }

    @Test("bad parameters are typed errors")
    func badParameters() {
        let salt = [UInt8](repeating: 1, count: 16)
        #expect(throws: CryptoError.invalidLength(.salt, expected: 16, actual: 8)) {
            try Argon2id.deriveKey(password: [UInt8](), salt: [UInt8](repeating: 1, count: 8), parameters: small)
        }
        #expect(throws: CryptoError.self) {
            try Argon2id.deriveKey(password: [UInt8](), salt: salt, parameters: .init(iterations: 0, memoryKiB: 64))
        }
        #expect(throws: CryptoError.self) {
            try Argon2id.deriveKey(password: [UInt8](), salt: salt, parameters: .init(iterations: 1, memoryKiB: 4))
        }
        #expect(throws: CryptoError.self) {
            try Argon2id.deriveKey(password: [UInt8](), salt: salt, parameters: small, outputLength: 15)
        }
        #expect(throws: CryptoError.self) {
            try Argon2id.deriveKey(password: [UInt8](), salt: salt, parameters: .init(iterations: 1, memoryKiB: .max))
        }
    }
}
