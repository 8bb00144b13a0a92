import E2EECrypto
@_spi(StoreInternals) import E2EEKeyStore
@testable import E2EEMessaging
import Foundation
import Testing

/// The pure pairwise step on its own: no store and no server — it names what it needs, and is
/// asked again with the answer.
@Suite("Receive: the pure pairwise step")
struct PairwiseStepTests {
    /// This device's keys (identity, signed prekey 1, one-time prekey 7) and another device that
    /// starts a session with them.
    struct Fixture {
        let local = E2EECrypto.IdentityKeyPair()
        let remote = E2EECrypto.IdentityKeyPair()
        let userID = UserID(newID())
        let deviceID = DeviceID(newID())
        let signedPrekey: E2EECrypto.SignedPrekey
        let oneTimePrekey: E2EECrypto.OneTimePrekey
        var sender: SessionRecord

        init() throws {
            signedPrekey = try E2EECrypto.SignedPrekey(id: 1, identity: local, createdAt: 1_700_000_000)
            oneTimePrekey = try E2EECrypto.OneTimePrekey(id: 7)
            let bundle = try PrekeyBundle(deviceID: newID(), identityKey: local.publicIdentity.base64, signedPreKey: signedPrekey.published.base64,
                                          signedPreKeySignature: signedPrekey.signatureBase64, oneTimePreKey: oneTimePrekey.published.base64)
            sender = SessionRecord(current: try X3DH.initiate(localIdentity: remote, bundle: bundle, pinnedIdentity: nil).state)
        }

        /// The sender's next entry of `text`.
        mutating func entry(_ text: String) throws -> PairwiseMessage {
            let encryption = try sender.encrypt(SecretBytes(copying: Array(text.utf8)))
            sender = encryption.record
            return try PairwiseMessage(bytes: encryption.message)
        }

        /// What the store would answer for the prekeys a prekey message names.
        var lookup: PrekeyLookup {
            PrekeyLookup(
                signedPrekey: E2EEKeyStore.SignedPrekey(id: 1, publicKey: signedPrekey.keyPair.publicKey.rawRepresentation,
                                                        privateKey: signedPrekey.keyPair.rawRepresentation, signature: signedPrekey.signature,
                                                        isCurrent: true, createdAt: StoreTime(microseconds: 1_700_000_000_000_000)),
                oneTimePrekey: E2EEKeyStore.OneTimePrekey(id: 7, publicKey: oneTimePrekey.keyPair.publicKey.rawRepresentation,
                                                          privateKey: oneTimePrekey.keyPair.rawRepresentation, state: .published,
                                                          createdAt: StoreTime(microseconds: 1_700_000_000_000_000)),
                ephemeralKeyAccepted: false)
        }

        func input(_ message: PairwiseMessage, record: SessionRecord? = nil, pins: [RemoteIdentity] = [], pinned: IdentityBlob? = nil,
                   prekeys: PrekeyLookup? = nil, listed: ListedAnswer? = nil) -> PairwiseStep.Input {
            PairwiseStep.Input(message: message, userID: userID, deviceID: deviceID, pins: pins, pinned: pinned, record: record, localIdentity: local,
                               prekeys: prekeys, acceptedInLane: false, listed: listed, now: 1_700_000_100)
        }
    }

    private func plaintext(_ decision: PairwiseStep.Decision) -> String? {
        guard case .decrypted(let pending) = decision else { return nil }
        return pending.plaintext.withByteView { String(decoding: $0, as: UTF8.self) }
    }

    @Test("a first prekey message asks for its prekeys, then for the listed identity, then decrypts and pins what was listed")
    func prekeyMessageAsksForWhatItNeeds() throws {
        var f = try Fixture()
        let first = try f.entry("hello")
        guard case .needsPrekeys = try PairwiseStep.decide(f.input(first), using: SystemRandom()) else { Issue.record("prekeys not asked"); return }
        guard case .needsListedIdentity = try PairwiseStep.decide(f.input(first, prekeys: f.lookup), using: SystemRandom()) else {
            Issue.record("listing not asked"); return
        }
        let decided = try PairwiseStep.decide(f.input(first, prekeys: f.lookup, listed: .listed(f.remote.publicIdentity)), using: SystemRandom())
        #expect(plaintext(decided) == "hello")
        guard case .decrypted(let pending) = decided else { return }
        #expect(pending.effects.identityToPin == f.remote.publicIdentity)
        #expect(pending.effects.consumedOneTimePrekey?.id == 7)

        // The sender has had no reply, so its next entry is a prekey message of the same session:
        // the record answers it and no prekey is asked for.
        let second = try f.entry("again")
        guard case .prekey(let prekey) = second else { Issue.record("not a prekey message"); return }
        #expect(PairwiseStep.answers(pending.effects.record, prekey))
        #expect(plaintext(try PairwiseStep.decide(f.input(second, record: pending.effects.record, pinned: f.remote.publicIdentity),
                                                  using: SystemRandom())) == "again")
    }

    @Test("the listing unavailable waits for the identity; a device its user does not list is refused")
    func listingAnswers() throws {
        var f = try Fixture()
        let first = try f.entry("hello")
        guard case .waiting(let key) = try PairwiseStep.decide(f.input(first, prekeys: f.lookup, listed: .unavailable), using: SystemRandom()) else {
            Issue.record("did not wait"); return
        }
        #expect(key == WaitingKey.identity(userID: f.userID, deviceID: f.deviceID))
        #expect(throws: ReceiveRefusal.self) { try PairwiseStep.decide(f.input(first, prekeys: f.lookup, listed: .notListed), using: SystemRandom()) }
    }

    @Test("T16: a device pinned under another user is refused before anything is opened")
    func pinnedUnderAnotherUser() throws {
        var f = try Fixture()
        let first = try f.entry("hello")
        let foreign = RemoteIdentity(userID: newID(), deviceID: f.deviceID.rawValue, identityBlob: f.remote.publicIdentity.bytes,
                                     firstSeenAt: StoreTime(microseconds: 0), verification: .unverified)
        #expect(throws: ReceiveRefusal.self) { try PairwiseStep.decide(f.input(first, pins: [foreign], prekeys: f.lookup), using: SystemRandom()) }
    }

    @Test("a pinned device presenting another identity is an identity change, refused with the claim to record")
    func identityChange() throws {
        var f = try Fixture()
        let first = try f.entry("hello")
        let other = E2EECrypto.IdentityKeyPair().publicIdentity
        do {
            _ = try PairwiseStep.decide(f.input(first, pinned: other, prekeys: f.lookup), using: SystemRandom())
            Issue.record("decrypted under another pin")
        } catch let refusal as ReceiveRefusal {
            #expect(refusal.reason == .identityChanged)
            #expect(refusal.identityChange?.identityBlob == f.remote.publicIdentity.bytes)
        }
    }

    @Test("a normal message without a session waits for the session")
    func normalMessageWithoutSession() throws {
        var f = try Fixture()
        let first = try f.entry("hello")
        guard case .decrypted(let pending) = try PairwiseStep.decide(f.input(first, prekeys: f.lookup, listed: .listed(f.remote.publicIdentity)),
                                                                     using: SystemRandom()) else { Issue.record("not decrypted"); return }
        // This side replies, so the sender's next entry is a normal message.
        let reply = try pending.effects.record.encrypt(SecretBytes(copying: Array("reply".utf8)))
        guard case .normal(let normalReply) = try PairwiseMessage(bytes: reply.message) else { Issue.record("reply not normal"); return }
        f.sender = try f.sender.decrypt(normalReply).effects.record
        let next = try f.entry("normal now")
        guard case .normal = next else { Issue.record("not a normal message"); return }
        guard case .waiting(let key) = try PairwiseStep.decide(f.input(next), using: SystemRandom()) else { Issue.record("did not wait"); return }
        #expect(key == WaitingKey.session(userID: f.userID, deviceID: f.deviceID))
        #expect(plaintext(try PairwiseStep.decide(f.input(next, record: reply.record), using: SystemRandom())) == "normal now")
    }
}
