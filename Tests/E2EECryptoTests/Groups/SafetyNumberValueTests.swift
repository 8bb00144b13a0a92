import E2EECrypto
import Testing

@Suite("SafetyNumber value: display, scannable form, comparison")
struct SafetyNumberValueTests {
    static let (userA, userB) = (SafetyNumberTests.userA, SafetyNumberTests.userB)
    static let (blobsA, blobsB) = (SafetyNumberTests.blobsA, SafetyNumberTests.blobsB)

    static func aliceView() throws -> SafetyNumber {
        try SafetyNumber(localUserID: userA, localIdentityBlobs: blobsA, remoteUserID: userB, remoteIdentityBlobs: blobsB)
    }

    static func bobView() throws -> SafetyNumber {
        try SafetyNumber(localUserID: userB, localIdentityBlobs: blobsB, remoteUserID: userA, remoteIdentityBlobs: blobsA)
    }

    @Test("the display form is the spec's 12 groups, the same text on both sides")
    func displayForm() throws {
        let alice = try Self.aliceView(), bob = try Self.bobView()
        let spec = try SafetyNumber.compute(userA: Self.userA, blobsA: Self.blobsA, userB: Self.userB, blobsB: Self.blobsB)
        #expect(alice.displayText == spec)
        #expect(bob.displayText == spec)
        #expect(alice.digitGroups.count == 12)
        #expect(alice.digitGroups.allSatisfy { $0.count == 5 && $0.allSatisfy(\.isNumber) })
        #expect(alice.description == spec)
        #expect(alice.localDigits == (try SafetyNumber.fingerprint(userID: Self.userA, identityBlobs: Self.blobsA)))
    }

    @Test("each side's code matches the other's scan, and only the other's")
    func scanMatchesTheOtherSide() throws {
        let alice = try Self.aliceView(), bob = try Self.bobView()
        #expect(alice.scannableForm.count == SafetyNumber.scannableLength)
        #expect(alice.scannableForm.first == SafetyNumber.scannableVersion)
        #expect(alice.compare(scanned: bob.scannableForm) == .match)
        #expect(bob.compare(scanned: alice.scannableForm) == .match)
        #expect(bob.compare(scannedText: alice.scannableText) == .match)
        #expect(bob.compare(scannedText: " \(alice.scannableText)\n") == .match, "a scanner's stray whitespace is ignored")
        // A device's own code is its own view, not the other's.
        #expect(alice.compare(scanned: alice.scannableForm) == .mismatch)
    }

    @Test("a different device list on either side fails the scan even where the digits would not show it at a glance")
    func anyDeviceChangeFailsTheScan() throws {
        let alice = try Self.aliceView()
        var altered = Self.blobsB[0]
        altered[10] ^= 0x01
        let bobWithOtherKey = try SafetyNumber(localUserID: Self.userB, localIdentityBlobs: [altered], remoteUserID: Self.userA,
                                               remoteIdentityBlobs: Self.blobsA)
        #expect(alice.compare(scanned: bobWithOtherKey.scannableForm) == .mismatch)
        let bobSeesOneDevice = try SafetyNumber(localUserID: Self.userB, localIdentityBlobs: Self.blobsB, remoteUserID: Self.userA,
                                                remoteIdentityBlobs: [Self.blobsA[0]])
        #expect(alice.compare(scanned: bobSeesOneDevice.scannableForm) == .mismatch)
        // Every single flipped bit of the code is caught.
        let code = try Self.bobView().scannableForm
        for index in 1..<code.count {
            var flipped = code
            flipped[index] ^= 0x80
            #expect(alice.compare(scanned: flipped) == .mismatch)
        }
    }

    @Test("codes that are not this version's, or not safety numbers, are told apart")
    func foreignCodes() throws {
        let alice = try Self.aliceView()
        var code = try Self.bobView().scannableForm
        #expect(alice.compare(scanned: []) == .notASafetyNumber)
        #expect(alice.compare(scanned: Array(code.dropLast())) == .notASafetyNumber)
        #expect(alice.compare(scanned: code + [0]) == .notASafetyNumber)
        code[0] = 0x02
        #expect(alice.compare(scanned: code) == .unsupportedVersion(0x02))
        #expect(alice.compare(scannedText: "https://example.com/not-a-code") == .notASafetyNumber)
        #expect(alice.compare(scannedText: String(repeating: "A", count: 4_000)) == .notASafetyNumber)
    }
}
