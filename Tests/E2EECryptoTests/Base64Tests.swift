@testable import E2EECrypto
import Foundation
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

    @Test("the canonical scan agrees with encoding back, over 200,000 strings near valid encodings")
    func canonicalScanAgreesWithEncodingBack() {
        // The fast path trusts `isCanonical`; the rule it replaced was "Foundation decodes it and
        // the bytes encode back to the same string". Strings one mutation away from a valid
        // encoding (a character replaced by any printable one or `=`) meet every edge: stray or
        // misplaced padding, non-zero padding bits, characters outside the alphabet.
        var random = SystemRandomNumberGenerator()
        let characters = Array((32...126).map { UInt8($0) })
        var agreed = 0
        for round in 0..<200_000 {
            let length = round % 7
            let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &random) }
            var text = Array(Base64.encode(bytes).utf8)
            if !text.isEmpty, round % 4 != 0 {
                text[Int.random(in: 0..<text.count, using: &random)] = characters.randomElement(using: &random) ?? 65
            }
            let string = String(decoding: text, as: UTF8.self)
            let encodesBack = Data(base64Encoded: string).map { $0.base64EncodedString() == string } ?? false
            let scanned = text.withUnsafeBufferPointer(Base64.isCanonical)
            #expect(scanned == encodesBack, "\(string)")
            if scanned == encodesBack { agreed += 1 }
            #expect(((try? Base64.decode(string, maxEncodedLength: 100)) != nil) == scanned, "\(string)")
        }
        #expect(agreed == 200_000)
    }

    @Test("whole groups read in place equal the strict decoder's bytes, and anything else is nil")
    func groupsInPlace() throws {
        var random = SystemRandomNumberGenerator()
        for round in 0..<20_000 {
            let bytes = (0..<(round % 30)).map { _ in UInt8.random(in: 0...255, using: &random) }
            var text = Array(Base64.encode(bytes).utf8)
            if !text.isEmpty, round % 3 == 0 {
                text[Int.random(in: 0..<text.count, using: &random)] = UInt8.random(in: 32...126, using: &random)
            }
            let grouped = text.withUnsafeBufferPointer(Base64.decodeGroups)
            let strict = try? Base64.decode(String(decoding: text, as: UTF8.self), maxEncodedLength: 100)
            if text.contains(UInt8(ascii: "=")) {
                #expect(grouped == nil)
            } else {
                #expect(grouped == strict, "\(String(decoding: text, as: UTF8.self))")
            }
        }
        #expect(Array("Zm9vYmE".utf8).withUnsafeBufferPointer(Base64.decodeGroups) == nil)  // not whole groups
    }
}
