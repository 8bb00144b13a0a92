import E2EECrypto
@testable import E2EEMessaging
import Testing

@Suite("Content digests")
struct ContentDigestTests {
    @Test("two SHA-256 outputs are one digest exactly when they are equal, and equal ones hash alike")
    func equalityFollowsTheBytes() {
        let a = SHA256.hash(Array("envelope a".utf8))
        let b = SHA256.hash(Array("envelope b".utf8))
        #expect(ContentDigest(a) == ContentDigest(a))
        #expect(ContentDigest(a) != ContentDigest(b))
        #expect(ContentDigest(a).hashValue == ContentDigest(Array(a)).hashValue)
        for index in a.indices {  // a difference in any one byte, in any word, tells them apart
            var changed = a
            changed[index] ^= 0x01
            #expect(ContentDigest(changed) != ContentDigest(a), "byte \(index)")
        }
        #expect(Set([ContentDigest(a), ContentDigest(b), ContentDigest(a)]).count == 2)
    }
}
