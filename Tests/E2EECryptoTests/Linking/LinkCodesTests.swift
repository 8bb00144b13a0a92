@testable import E2EECrypto
import Testing

/// The commitment, the two codes and `primary_sig` (docs/spec/protocol.md §10.22, §10.23).
@Suite("Linking: commitment, codes, primary signature")
struct LinkCodesTests {
    let fixtures = LinkTestFixtures()

    func codes(nonceN: SecretBytes? = nil, nonceP: SecretBytes? = nil, user: WireUUID? = nil, newIdentity: IdentityBlob? = nil) throws -> LinkCodes {
        try LinkCodes.derive(newDeviceNonce: nonceN ?? fixtures.nonceN, primaryNonce: nonceP ?? fixtures.nonceP, userID: user ?? fixtures.user,
                             primaryDevice: fixtures.primary, primaryIdentity: fixtures.primaryIdentity.publicIdentity,
                             newDevice: fixtures.newDevice, newIdentity: newIdentity ?? fixtures.newIdentity.publicIdentity)
    }

    @Test("the commitment is SHA-256 of the label and the nonce, and verifies only its own nonce")
    func commitment() throws {
        let commit = LinkCommitment.commit(to: fixtures.nonceN)
        #expect(commit == SHA256.hash(Array("e2ee-link-commit-v1".utf8) + fixtures.nonceN.unprotectedCopy()))
        #expect(LinkCommitment.verifies(commit, nonce: fixtures.nonceN))
        #expect(!LinkCommitment.verifies(commit, nonce: fixtures.nonceP))
        #expect(!LinkCommitment.verifies(Array(commit.dropLast()), nonce: fixtures.nonceN))
    }

    @Test("the codes are the HKDF output's two 40-bit halves mod 10^6, six digits with leading zeros")
    func derivation() throws {
        let derived = try codes()
        var info = Array("e2ee-link-code-v1".utf8) + fixtures.user.bytes + fixtures.primary.bytes + fixtures.primaryIdentity.publicIdentity.bytes
        info += fixtures.newDevice.bytes + fixtures.newIdentity.publicIdentity.bytes
        let okm = try HKDF.deriveKey(inputKeyMaterial: fixtures.nonceN.unprotectedCopy() + fixtures.nonceP.unprotectedCopy(),
                                     salt: [UInt8](repeating: 0, count: 32), info: info, outputLength: 10).unprotectedCopy()
        func code(_ bytes: ArraySlice<UInt8>) -> String {
            let value = bytes.reduce(UInt64(0)) { $0 << 8 | UInt64($1) } % 1_000_000
            let digits = String(value)
            return String(repeating: "0", count: 6 - digits.count) + digits
        }
        #expect(derived.newDeviceCode == code(okm[0..<5]))
        #expect(derived.primaryCode == code(okm[5..<10]))
        #expect(derived.newDeviceCode.utf8.count == 6 && derived.primaryCode.utf8.count == 6)
        #expect(String(describing: derived) == "LinkCodes(<redacted>)")
    }

    @Test("leading zeros are kept: some nonce gives a code below 100000")
    func leadingZeros() throws {
        var found = false
        for fill in 0..<UInt8(255) where !found {
            let derived = try codes(nonceP: SecretBytes(copying: [UInt8](repeating: fill, count: 32)))
            for code in [derived.newDeviceCode, derived.primaryCode] where code.hasPrefix("0") {
                #expect(code.utf8.count == 6)
                found = true
            }
        }
        #expect(found)
    }

    @Test("each input changes the codes: either nonce, the user, or the other side's blob")
    func bindings() throws {
        let base = try codes()
        #expect(try codes(nonceN: fixtures.nonceP) != base)
        #expect(try codes(nonceP: fixtures.nonceN) != base)
        #expect(try codes(user: fixtures.channel) != base)
        #expect(try codes(newIdentity: fixtures.primaryIdentity.publicIdentity) != base)
        #expect(throws: ProtocolError.malformed(.linkPlaintext, reason: "nonce of 31 bytes")) {
            try codes(nonceN: SecretBytes(copying: [UInt8](repeating: 0, count: 31)))
        }
    }

    @Test("a typed code matches only the same six digits")
    func matching() throws {
        #expect(LinkCodes.matches(typed: "012345", expected: "012345"))
        #expect(!LinkCodes.matches(typed: "012346", expected: "012345"))
        #expect(!LinkCodes.matches(typed: "12345", expected: "012345"))
        #expect(!LinkCodes.matches(typed: "0123456", expected: "012345"))
        #expect(!LinkCodes.matches(typed: "01234a", expected: "01234a"))
        #expect(!LinkCodes.matches(typed: "", expected: ""))
    }

    @Test("primary_sig verifies only for its user, sender, recipient, epoch and not_after, under the signing key")
    func primarySignature() throws {
        let f = fixtures
        let signature = PrimarySignature.sign(by: f.userKey, userID: f.user, senderDevice: f.primary, recipientDevice: f.newDevice,
                                              epoch: 3, notAfter: 1_800_000_000)
        let message = Array("e2ee-primary-v1".utf8) + f.user.bytes + f.primary.bytes + f.newDevice.bytes + [0, 0, 0, 3]
            + WireWriter.bytesOf(UInt32(1_800_000_000))
        #expect(f.userKey.publicKey.isValidSignature(signature, for: message))
        func verifies(user: WireUUID? = nil, sender: WireUUID? = nil, recipient: WireUUID? = nil, epoch: UInt32 = 3,
                      notAfter: UInt32 = 1_800_000_000, key: Ed25519.PublicKey? = nil) -> Bool {
            PrimarySignature.verifies(signature, userKey: key ?? f.userKey.publicKey, userID: user ?? f.user, senderDevice: sender ?? f.primary,
                                      recipientDevice: recipient ?? f.newDevice, epoch: epoch, notAfter: notAfter)
        }
        #expect(verifies())
        #expect(!verifies(user: f.channel))
        #expect(!verifies(sender: f.newDevice, recipient: f.primary))
        #expect(!verifies(recipient: f.channel))
        #expect(!verifies(epoch: 4))
        #expect(!verifies(notAfter: 1_800_000_001))
        #expect(!verifies(key: Ed25519.PrivateKey(using: DeterministicRandom(seed: [9])).publicKey))
    }
}

extension WireWriter {
    /// The big-endian bytes of `value`.
    static func bytesOf(_ value: UInt32) -> [UInt8] {
        var writer = WireWriter()
        writer.write(value)
        return writer.bytes
    }
}
