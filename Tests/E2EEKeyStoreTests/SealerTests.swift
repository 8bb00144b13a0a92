import E2EECrypto
@_spi(StoreInternals) @testable import E2EEKeyStore
import Foundation
import Testing

@Suite struct SealerTests {
    let sealer = Sealer(key: .random())
    let secret = Fixtures.secret("chain key material")

    @Test func sealedValueOpensInItsOwnCell() throws {
        let sealed = try sealer.seal(secret, table: "sessions", column: "state", rowID: "abc")
        #expect(sealed.count == secret.count + Sealer.overhead)
        #expect(sealed.first == Sealer.version)
        #expect(try sealer.open(sealed, table: "sessions", column: "state", rowID: "abc") == secret)
    }

    @Test func sealingTwiceGivesDifferentBytes() throws {
        let a = try sealer.seal(secret, table: "t", column: "c", rowID: "1")
        let b = try sealer.seal(secret, table: "t", column: "c", rowID: "1")
        #expect(a != b)
    }

    @Test func whenMovedToAnotherRowColumnOrTable_thenRejected() throws {
        let sealed = try sealer.seal(secret, table: "sessions", column: "state", rowID: "abc")
        #expect(throws: KeyStoreError.sealedValueRejected(table: "sessions", column: "state")) {
            try sealer.open(sealed, table: "sessions", column: "state", rowID: "abd")
        }
        #expect(throws: KeyStoreError.sealedValueRejected(table: "sessions", column: "other")) {
            try sealer.open(sealed, table: "sessions", column: "other", rowID: "abc")
        }
        #expect(throws: KeyStoreError.sealedValueRejected(table: "outbox", column: "state")) {
            try sealer.open(sealed, table: "outbox", column: "state", rowID: "abc")
        }
    }

    @Test func whenPartsRunTogetherDifferently_thenRejected() throws {
        // Length-prefixed associated data: ("ab", "c") and ("a", "bc") are different cells.
        let sealed = try sealer.seal(secret, table: "ab", column: "c", rowID: "1")
        #expect(throws: KeyStoreError.self) { try sealer.open(sealed, table: "a", column: "bc", rowID: "1") }
    }

    @Test func whenAnyByteIsFlipped_thenRejected() throws {
        let sealed = try sealer.seal(secret, table: "t", column: "c", rowID: "1")
        for index in 1..<sealed.count {
            var altered = sealed
            altered[index] ^= 0x01
            #expect(throws: KeyStoreError.sealedValueRejected(table: "t", column: "c")) {
                try sealer.open(altered, table: "t", column: "c", rowID: "1")
            }
        }
    }

    @Test func whenVersionUnknownOrTruncated_thenTypedError() throws {
        var sealed = try sealer.seal(secret, table: "t", column: "c", rowID: "1")
        #expect(throws: KeyStoreError.sealedValueRejected(table: "t", column: "c")) {
            try sealer.open(sealed.prefix(Sealer.overhead - 1), table: "t", column: "c", rowID: "1")
        }
        #expect(throws: KeyStoreError.sealedValueRejected(table: "t", column: "c")) {
            try sealer.open(Data(), table: "t", column: "c", rowID: "1")
        }
        sealed[0] = 9
        #expect(throws: KeyStoreError.unsupportedSealedVersion(9)) { try sealer.open(sealed, table: "t", column: "c", rowID: "1") }
    }

    @Test func whenSealedUnderAnotherKey_thenRejected() throws {
        let sealed = try sealer.seal(secret, table: "t", column: "c", rowID: "1")
        #expect(throws: KeyStoreError.self) { try Sealer(key: .random()).open(sealed, table: "t", column: "c", rowID: "1") }
    }

    @Test func storeKeyRefusesWrongLengthsAndNeverPrintsItself() throws {
        #expect(throws: KeyStoreError.invalidKeyLength(actual: 31)) { try StoreKey(SecretBytes(copying: Fixtures.bytes(31, 1))) }
        let raw = Fixtures.bytes(32, 0xAB)
        let key = try StoreKey(SecretBytes(copying: raw))
        #expect(!String(describing: key).lowercased().contains("abab"))
        #expect(!String(reflecting: key).lowercased().contains("abab"))
    }
}

/// A random source that writes 0, 1, 2, … so sealed bytes are reproducible.
struct CountingRandom: RandomSource {
    func fill(_ buffer: UnsafeMutableRawBufferPointer) {
        for index in 0..<buffer.count { buffer[index] = UInt8(truncatingIfNeeded: index) }
    }
}

@Suite struct SealedFormatTests {
    /// Pins the sealed layout and the associated data byte for byte, built here independently
    /// of `Sealer` so a change to either breaks this test (stored files depend on it).
    @Test func sealedLayoutAndAssociatedDataArePinned() throws {
        let key = try StoreKey(SecretBytes(copying: (0..<32).map { UInt8($0) }))
        let sealer = Sealer(key: key, random: CountingRandom())
        let sealed = try sealer.seal(Fixtures.secret("secret"), table: "sessions", column: "state", rowID: "r1")
        let nonce = (0..<24).map { UInt8($0) }
        var ad = Array("E2EEKeyStore".utf8) + [1]
        ad += [0, 0, 0, 8] + Array("sessions".utf8)
        ad += [0, 0, 0, 5] + Array("state".utf8)
        ad += [0, 0, 0, 2] + Array("r1".utf8)
        let body = try XChaCha20Poly1305.seal(Array("secret".utf8), key: (0..<32).map { UInt8($0) }, nonce: nonce, authenticating: ad)
        #expect([UInt8](sealed) == [1] + nonce + body)
    }
}
