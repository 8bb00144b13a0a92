import E2EECrypto
import Testing

@Suite("Strict base64")
struct Base64Tests {
    @Test("round-trips every length from 0 to 64")
    func roundTrip() throws {
        for length in 0...64 {
            let bytes = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) }
            let text = Base64.encode(bytes)
            #expect(text.count == (length + 2) / 3 * 4)
            #expect(try Base64.decode(text, maxEncodedLength: 1000) == bytes)
        }
    }

    @Test("RFC 4648 §10 examples")
    func rfcExamples() throws {
        let cases = ["": "", "f": "Zg==", "fo": "Zm8=", "foo": "Zm9v", "foob": "Zm9vYg==", "fooba": "Zm9vYmE=", "foobar": "Zm9vYmFy"]
        for (plain, encoded) in cases {
            #expect(Base64.encode(Array(plain.utf8)) == encoded)
            #expect(try Base64.decode(encoded, maxEncodedLength: 100) == Array(plain.utf8))
        }
    }

    @Test("missing padding is refused", arguments: ["Zg", "Zm8", "Zg="])
    func missingPadding(_ text: String) {
        #expect(throws: Base64Error.invalidLength(text.utf8.count)) { try Base64.decode(text, maxEncodedLength: 100) }
    }

    @Test("non-zero padding bits are refused", arguments: ["QR==", "Zh==", "Zm9=", "AB=="])
    func nonCanonical(_ text: String) {
        #expect(throws: Base64Error.nonCanonical) { try Base64.decode(text, maxEncodedLength: 100) }
    }

    @Test("whitespace, url-safe alphabet and stray padding are refused",
          arguments: ["Zm9v\nYmFy", "Zm9v YmF", " Zm9vYmFy ", "-_-_", "ab_c", "Zm==Zm9v", "====", "Zm9vYmF\u{00e9}"])
    func invalidCharacters(_ text: String) {
        #expect(throws: Base64Error.self) { try Base64.decode(text, maxEncodedLength: 100) }
    }

    // Found by Fuzz/fuzz-base64: libsodium 1.0.18 reads most bytes above 0x7F as base64 digits,
    // so a `content` with non-ASCII characters decoded as if it were another, canonical string.
    @Test("non-ASCII characters are refused even when the length is a multiple of 4",
          arguments: ["AA\u{00e9}", "QUJD\u{00e9}AA", "Zm9v\u{00e9}Zg", "\u{00ef}\u{00bf}", "A\u{fffd}"])
    func nonASCII(_ text: String) {
        #expect(text.utf8.count % 4 == 0)
        #expect(throws: Base64Error.invalidCharacters) { try Base64.decode(text, maxEncodedLength: 100) }
    }

    @Test("the length limit is checked before decoding")
    func lengthLimit() {
        let text = String(repeating: "A", count: 16)
        #expect(throws: Base64Error.tooLong(length: 16, limit: 12)) { try Base64.decode(text, maxEncodedLength: 12) }
        #expect((try? Base64.decode(text, maxEncodedLength: 16))?.count == 12)
    }
}
