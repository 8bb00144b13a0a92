import E2EECrypto
import Testing

/// Safety numbers under a user key (docs/spec/protocol.md §10.18, B.5): a user with a pinned key
/// has `h = SHA-512(0x00 0x01 ‖ K ‖ uid)`, then 5,199 times `h = SHA-512(h ‖ K)`, no device
/// entering it; digits, combination and scannable form as §7.4–§7.6.
@Suite("Safety numbers under a user key")
struct SafetyNumberUserKeyTests {
    /// `safety_numbers_test.json` tcId 4 ("a user key and one device"), copied from the file.
    enum Vector {
        static let userA = "65e15dd6-8510-cc74-8b0d-023205ec28e8"
        static let userKeyA = hex("28c8e3a78b84e9250e238c6acff60e1d63c23da98d567625639a2484c059146e")
        static let userB = "f6dd5d4f-dff3-b709-a4f2-b9a8ef9c0558"
        static let blobsB = [hex("017a25bee56b503d34dda1336e470bf55a5034c661b1d33fc219930221d23f41"
            + "01b8b5f31a5b7f78c12758e2d81b8c50e7942d958591e6775d3cdffa283df85d17")]
        static let fingerprintA = "236616955755296348529041121310"
        static let fingerprintB = "999636271433919011132447285496"
        static let safetyNumber = "23661 69557 55296 34852 90411 21310 99963 62714 33919 01113 24472 85496"
        static let scannableForm = hex("01c6fa3e7c4d4b393bd495c60c81c320ee34570604264fb922ebd4b54a707e2e71"
            + "1fdde8ae9b0559dc8cfa4aa14faf5f2528267d99e648fa0b1853fcb63678f0d3")
    }

    static let userA = SafetyNumberTests.userA, userB = SafetyNumberTests.userB
    /// The Ed25519 public key of the seed 00 01 … 1f.
    static let keyA = hex("03a107bff3ce10be1d70dd18e74bc09967e4d6309ba50d5f1ddc8664125531b8")
    static let keyB = Vector.userKeyA

    @Test("B.5 known answers: the vector's case, and one computed with Python hashlib alone")
    func knownAnswer() throws {
        #expect(try SafetyNumber.fingerprint(userID: Vector.userA, userKey: Vector.userKeyA) == Vector.fingerprintA)
        #expect(try SafetyNumber.fingerprint(userID: Vector.userB, identityBlobs: Vector.blobsB) == Vector.fingerprintB)
        let alice = try SafetyNumber(localUserID: Vector.userA, local: .userKey(Vector.userKeyA),
                                     remoteUserID: Vector.userB, remote: .devices(Vector.blobsB))
        #expect(alice.localDigits == Vector.fingerprintA && alice.remoteDigits == Vector.fingerprintB)
        #expect(alice.displayText == Vector.safetyNumber)
        #expect(alice.scannableForm == Vector.scannableForm)
        #expect(try SafetyNumber.fingerprint(userID: Self.userA, userKey: Self.keyA) == "442997626414285936234972395797")
    }

    @Test("a user-key half is not a device half: a device whose signing key has the key's bytes gives other digits and another code")
    func keyHalfIsNotADeviceHalf() throws {
        let device: [UInt8] = [0x01] + [UInt8](repeating: 0x11, count: 32) + Self.keyA
        #expect(try SafetyNumber.fingerprint(userID: Self.userA, userKey: Self.keyA)
            != SafetyNumber.fingerprint(userID: Self.userA, identityBlobs: [device]))
        let underKey = try SafetyNumber(localUserID: Self.userA, local: .userKey(Self.keyA), remoteUserID: Self.userB, remote: .userKey(Self.keyB))
        let fromDevice = try SafetyNumber(localUserID: Self.userA, local: .devices([device]), remoteUserID: Self.userB, remote: .userKey(Self.keyB))
        #expect(underKey != fromDevice)
        #expect(underKey.localDigits != fromDevice.localDigits && underKey.remoteDigits == fromDevice.remoteDigits)
        #expect(fromDevice.compare(scanned: underKey.scannableForm) == .mismatch)
        // The key, and the user it belongs to, both enter.
        #expect(try SafetyNumber.fingerprint(userID: Self.userA, userKey: Self.keyB) != SafetyNumber.fingerprint(userID: Self.userA, userKey: Self.keyA))
        #expect(try SafetyNumber.fingerprint(userID: Self.userB, userKey: Self.keyA) != SafetyNumber.fingerprint(userID: Self.userA, userKey: Self.keyA))
    }

    @Test("the combined number is symmetric: both sides show the same digits and each matches the other's scan")
    func symmetric() throws {
        let halves: [(SafetyNumber.UserHalf, SafetyNumber.UserHalf)] = [
            (.userKey(Self.keyA), .devices(SafetyNumberTests.blobsB)),
            (.devices(SafetyNumberTests.blobsA), .userKey(Self.keyB)),
            (.userKey(Self.keyA), .userKey(Self.keyB)),
        ]
        for (a, b) in halves {
            let alice = try SafetyNumber(localUserID: Self.userA, local: a, remoteUserID: Self.userB, remote: b)
            let bob = try SafetyNumber(localUserID: Self.userB, local: b, remoteUserID: Self.userA, remote: a)
            #expect(alice == bob && alice.displayText == bob.displayText)
            #expect(alice.localDigits == bob.remoteDigits && alice.remoteDigits == bob.localDigits)
            #expect(try SafetyNumber.combine(alice.localDigits, alice.remoteDigits) == bob.displayText)
            #expect(alice.compare(scanned: bob.scannableForm) == .match && bob.compare(scanned: alice.scannableForm) == .match)
            #expect(alice.compare(scanned: alice.scannableForm) == .mismatch)
        }
    }

    @Test("the user id is lower-cased before hashing")
    func lowerCased() throws {
        #expect(Self.userA != Self.userA.lowercased())
        #expect(try SafetyNumber.fingerprint(userID: Self.userA, userKey: Self.keyA) == SafetyNumber.fingerprint(userID: Self.userA.lowercased(), userKey: Self.keyA))
        #expect(try SafetyNumber.fingerprint(userID: Vector.userA.uppercased(), userKey: Vector.userKeyA) == Vector.fingerprintA)
    }

    @Test("a user key that is not 32 bytes is refused as malformed, on either side")
    func wrongLength() {
        for key in [[], Array(Self.keyA.prefix(31)), Self.keyA + [0x00]] {
            #expect(Self.isMalformed { _ = try SafetyNumber.fingerprint(userID: Self.userA, userKey: key) }, "\(key.count) bytes")
            #expect(Self.isMalformed {
                _ = try SafetyNumber(localUserID: Self.userA, local: .userKey(key), remoteUserID: Self.userB, remote: .userKey(Self.keyB))
            })
            #expect(Self.isMalformed {
                _ = try SafetyNumber(localUserID: Self.userA, local: .userKey(Self.keyB), remoteUserID: Self.userB, remote: .userKey(key))
            })
        }
    }

    /// Whether `body` throws ``ProtocolError/malformed(_:reason:)``.
    static func isMalformed(_ body: () throws -> Void) -> Bool {
        do {
            try body()
        } catch ProtocolError.malformed {
            return true
        } catch {
            return false
        }
        return false
    }
}

/// The bytes of hex text written in this file (a typo gives other bytes, which fails a known answer).
private func hex(_ text: String) -> [UInt8] {
    let digits = Array(text.utf8)
    return stride(from: 0, to: digits.count, by: 2).map { index in
        UInt8(String(decoding: digits[index...index + 1], as: UTF8.self), radix: 16) ?? 0
    }
}
