import E2EECrypto
import E2EETestSupport
import Testing

@Suite("SHA-256 of a text")
struct SHA256TextTests {
    @Test("the digest of a text is the digest of its UTF-8 bytes (FIPS 180-2's \"abc\", empty, multi-byte, NUL)")
    func textDigestIsTheDigestOfItsUTF8Bytes() throws {
        #expect(SHA256.hash(utf8: "abc") == (try Hex.decode("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")))
        #expect(SHA256.hash(utf8: "") == (try Hex.decode("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")))
        let longText = String(repeating: "über 🔐 ", count: 200)
        for text in ["é", "e\u{301}", "a\u{0}b", "🔐🗝️", longText, String(longText.dropFirst(3).prefix(50))] {
            #expect(SHA256.hash(utf8: text) == SHA256.hash(Array(text.utf8)))
        }
        // Canonically equal texts are different bytes, so different digests.
        #expect(SHA256.hash(utf8: "é") != SHA256.hash(utf8: "e\u{301}"))
    }
}
