@testable import E2EECrypto
import E2EETestSupport
import Testing

/// Golden values for the stored forms: with a seeded random source every byte is fixed, so a
/// change to a persisted layout (which the key store must keep reading) shows up here.
@Suite("Sessions: golden stored forms")
struct SessionGoldenTests {
    static func scenario() throws -> (identity: IdentityKeyPair, spk: SignedPrekey, opk: OneTimePrekey, record: SessionRecord) {
        let random = DeterministicRandom(seed: Array("e2ee golden sessions".utf8))
        let alice = IdentityKeyPair(using: random)
        let bob = IdentityKeyPair(using: random)
        let spk = try SignedPrekey(id: 0x0102_0304, identity: bob, createdAt: 1_700_000_000, using: random)
        let opk = try OneTimePrekey(id: 7, using: random)
        let bundle = try PrekeyBundle(deviceID: "00000000-0000-4000-8000-000000000001", identityKey: bob.publicIdentity.base64,
                                      signedPreKey: spk.published.base64, signedPreKeySignature: spk.signatureBase64,
                                      oneTimePreKey: opk.published.base64)
        let started = try X3DH.initiate(localIdentity: alice, bundle: bundle, pinnedIdentity: nil, using: random)
        var record = SessionRecord(current: started.state)
        for text in ["one", "two", "three"] { record = try record.encrypt(Array(text.utf8)).record }
        return (alice, spk, opk.consumed(at: 1_700_000_100), record)
    }

    @Test("identity, prekeys and a session record serialize to the committed bytes")
    func goldenForms() throws {
        let (identity, spk, opk, record) = try Self.scenario()
        #expect(Hex.encode(identity.serialized().unprotectedCopy()) == Self.identityHex)
        #expect(Hex.encode(SHA256.hash(spk.serialized())) == Self.signedPrekeyDigest)
        #expect(Hex.encode(SHA256.hash(opk.serialized())) == Self.oneTimePrekeyDigest)
        #expect(Hex.encode(SHA256.hash(record.serialized())) == Self.recordDigest)
        #expect(try SessionRecord(serialized: record.serialized()).serialized() == record.serialized())
    }

    static let identityHex = "013eec8f08c84d434caef5d9865d07bdfb5e818260d13b93659f981526f6014133"
        + "911b72431e152d57f6cc3276243f1131fb659f4e62fa8ce4dace68b67dd888fa"
    /// The layout is unchanged since text 1.2; the signature it holds is text 1.3's (over the
    /// record with the zero certificate, `"e2ee-spk-v2"`), so the digest changed with it.
    static let signedPrekeyDigest = "2bbc230e3484907bc0257c4c6b3dbdc17e30bee42289b18401756fcb14a6bf0f"
    static let oneTimePrekeyDigest = "f438d4390d2977d96bf5830b805d35b609d50a5efba002be32f31abf5dd05655"
    static let recordDigest = "757e98ecebbc78825b471dec1dbe9b230abd9326e6173f3d30e5f6caf36cf529"
}
