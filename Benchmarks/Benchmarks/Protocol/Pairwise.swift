import BenchmarkSupport
import E2EECrypto

/// Alice (initiator) and Bob (responder) with Bob's published keys, and the first prekey
/// message Alice sends him: the inputs of the X3DH and ratchet benchmarks.
struct Pairwise {
    let alice = IdentityKeyPair()
    let bob = IdentityKeyPair()
    let signedPrekey: SignedPrekey
    let oneTimePrekey: OneTimePrekey
    /// Bob's bundle as Alice gets it (parsed and verified once, outside any measurement).
    let bundle: PrekeyBundle
    /// Alice's first message: a prekey message carrying 1 KiB, with a one-time prekey (four DHs).
    let prekeyMessage: PrekeyMessage
    /// Alice's record right after her first send.
    let aliceRecord: SessionRecord

    /// What a "cannot happen" setup failure is reported as.
    struct SetupFailed: Error {
        let step: String
    }

    init() throws {
        signedPrekey = try SignedPrekey(id: 1, identity: bob, createdAt: now)
        oneTimePrekey = try OneTimePrekey(id: 1)
        bundle = try PrekeyBundle(
            deviceID: "6f1c7d3e-2b4a-4c8e-9f10-1a2b3c4d5e6f", identityKey: bob.publicIdentity.base64,
            signedPreKey: signedPrekey.published.base64, signedPreKeySignature: signedPrekey.signatureBase64,
            oneTimePreKey: oneTimePrekey.published.base64
        )
        let initiated = try X3DH.initiate(localIdentity: alice, bundle: bundle, pinnedIdentity: nil)
        let sent = try SessionRecord(current: initiated.state).encrypt(message1KiB)
        guard case .prekey(let message) = try PairwiseMessage(bytes: sent.message) else { throw SetupFailed(step: "first message") }
        prekeyMessage = message
        aliceRecord = sent.record
    }

    /// Bob's context for the prekey message: Alice pinned, the SPK and the unconsumed OPK.
    var responderContext: ResponderContext {
        ResponderContext(localIdentity: bob, pinnedIdentity: alice.publicIdentity, listedIdentity: nil,
                         signedPrekeys: [signedPrekey], oneTimePrekeys: [oneTimePrekey], acceptedBaseKeys: [], now: now)
    }

    /// Both records in steady state: Bob has answered, so Alice sends normal messages on one
    /// chain and Bob decrypts them in order.
    func established() throws -> (alice: SessionRecord, bob: SessionRecord) {
        guard case .decrypted(let first) = try X3DH.respond(to: prekeyMessage, record: nil, context: responderContext) else {
            throw SetupFailed(step: "respond")
        }
        let reply = try first.effects.record.encrypt(message1KiB)
        guard case .normal(let normal) = try PairwiseMessage(bytes: reply.message) else { throw SetupFailed(step: "reply") }
        let alice = try aliceRecord.decrypt(normal).effects.record
        return (alice, reply.record)
    }
}
