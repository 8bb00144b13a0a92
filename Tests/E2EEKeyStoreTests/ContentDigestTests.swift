import E2EECrypto
@_spi(StoreInternals) @testable import E2EEKeyStore
import Foundation
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

    @Test("a digest gives back its bytes and their prefix, whether it was made from an array or from Data")
    func bytesRoundTrip() {
        let hash = SHA256.hash(Array("envelope".utf8))
        #expect(ContentDigest(hash).bytes == hash)
        #expect(ContentDigest(Data(hash)).bytes == hash)
        #expect(ContentDigest(Data(hash)) == ContentDigest(hash))
        #expect(ContentDigest(hash).prefix(8) == Data(hash.prefix(8)))
    }
}
