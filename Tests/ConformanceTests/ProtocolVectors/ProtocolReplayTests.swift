import E2EEConformance
import E2EECrypto
import E2EEProtocolVectorGenerator
import E2EETestSupport
import Testing

/// Replays each committed protocol vector file through the public API: outputs are recomputed,
/// conversations are decrypted event by event, and every invalid case must be refused with
/// the `failure` the file names while leaving state byte-identical.
@Suite("Protocol vectors: replay")
struct ProtocolReplayTests {
    @Test("x3dh_test.json")
    func x3dh() throws {
        let file = try ProtocolReplay.file("x3dh_test.json")
        var tally = ReplayTally()
        for test in file.cases {
            let alice = try ProtocolReplay.identity(test, dh: "initiatorIdentityPrivate", seed: "initiatorSigningSeed")
            let makeBundle = {
                try ProtocolReplay.bundle(identity: test.hex("responderIdentityBlob"), signedPrekey: test.hex("signedPrekeyPublic"),
                                          signature: test.hex("signedPrekeySignature"), oneTimePrekey: test.hex("oneTimePrekeyPublic"))
            }
            guard test.result == .valid else {
                ProtocolReplay.expectRefusal(test.failure, test.label) {
                    _ = try X3DH.initiate(localIdentity: alice, bundle: makeBundle(), pinnedIdentity: nil, using: ScriptedRandom([]))
                }
                #expect(try test.text("sharedSecret").isEmpty && test.text("associatedData").isEmpty, "\(test.label)")
                tally.invalid += 1
                continue
            }
            let bob = try ProtocolReplay.identity(test, dh: "responderIdentityPrivate", seed: "responderSigningSeed")
            let spk = try ProtocolReplay.signedPrekey(test, bob: bob)
            let opk = try ProtocolReplay.oneTimePrekey(test)
            #expect(try alice.publicIdentity.bytes == test.hex("initiatorIdentityBlob"), "\(test.label)")
            #expect(try bob.publicIdentity.bytes == test.hex("responderIdentityBlob"), "\(test.label)")
            #expect(try spk.published.bytes == test.hex("signedPrekeyPublic"), "\(test.label)")
            #expect(try spk.signature == test.hex("signedPrekeySignature"), "\(test.label)")
            #expect(try (opk?.published.bytes ?? []) == test.hex("oneTimePrekeyPublic"), "\(test.label)")
            // Alice's side: EK from the file, then any first ratchet key.
            let random = ScriptedRandom(try test.hex("ephemeralPrivate") + [UInt8](repeating: 0x42, count: 32))
            let session = try X3DH.initiate(localIdentity: alice, bundle: makeBundle(), pinnedIdentity: nil, using: random)
            #expect(random.requested == 64, "\(test.label)")
            #expect(try session.state.baseKey.rawRepresentation == test.hex("ephemeralPublic"), "\(test.label)")
            #expect(try session.state.associatedData == test.hex("associatedData"), "\(test.label)")
            // SK is not public API: recompute it from §2 with the primitives, then require Bob's
            // side to derive the same session and open Alice's first message.
            let ephemeral = try X25519.PrivateKey(rawRepresentation: SecretBytes(copying: test.hex("ephemeralPrivate")))
            var ikm = [UInt8](repeating: 0xFF, count: 32)
            ikm += try alice.dhKey.sharedSecret(with: spk.keyPair.publicKey).unprotectedCopy()
            ikm += try ephemeral.sharedSecret(with: bob.dhKey.publicKey).unprotectedCopy()
            ikm += try ephemeral.sharedSecret(with: spk.keyPair.publicKey).unprotectedCopy()
            if let opk { ikm += try ephemeral.sharedSecret(with: opk.keyPair.publicKey).unprotectedCopy() }
            let sharedSecret = try HKDF.deriveKey(inputKeyMaterial: ikm, salt: [UInt8](repeating: 0, count: 32),
                                                  info: Array("e2ee-x3dh-v1".utf8), outputLength: 32)
            #expect(try sharedSecret.unprotectedCopy() == test.hex("sharedSecret"), "\(test.label): sharedSecret")
            let sent = try SessionRecord.installing(session.state, into: nil).encrypt([0x01, 0x02, 0x03])
            let bobDevice = PairwiseDevice(identity: bob, record: nil, signedPrekeys: [spk], oneTimePrekeys: opk.map { [$0] } ?? [],
                                           pinned: nil, listed: alice.publicIdentity, now: 1_764_000_000)
            #expect(try bobDevice.receiving(sent.message, using: ScriptedRandom([])).plaintext == [0x01, 0x02, 0x03], "\(test.label)")
            tally.valid += 1
        }
        #expect(tally.valid >= 2 && tally.invalid > 0)
        ProtocolReplay.summary(file, tally)
    }

    @Test("double_ratchet_test.json")
    func doubleRatchet() throws {
        let file = try ProtocolReplay.file("double_ratchet_test.json")
        var tally = ReplayTally()
        for test in file.cases {
            try replayConversation(test, tally: &tally)
            tally.valid += 1
        }
        #expect(tally.valid >= 2 && tally.invalid > 0)
        ProtocolReplay.summary(file, tally)
    }

    private func replayConversation(_ test: VectorCase, tally: inout ReplayTally) throws {
        let alice = try ProtocolReplay.identity(test, dh: "initiatorIdentityPrivate", seed: "initiatorSigningSeed")
        let bob = try ProtocolReplay.identity(test, dh: "responderIdentityPrivate", seed: "responderSigningSeed")
        let spk = try ProtocolReplay.signedPrekey(test, bob: bob)
        let opk = try ProtocolReplay.oneTimePrekey(test)
        let bundle = try ProtocolReplay.bundle(identity: bob.publicIdentity.bytes, signedPrekey: spk.published.bytes,
                                               signature: spk.signature, oneTimePrekey: opk?.published.bytes ?? [])
        let random = ScriptedRandom(try test.hex("ephemeralPrivate") + test.hex("aliceInitialRatchetPrivate"))
        let session = try X3DH.initiate(localIdentity: alice, bundle: bundle, pinnedIdentity: nil, using: random)
        #expect(random.requested == 64)
        var devices: [String: PairwiseDevice] = [
            "alice": PairwiseDevice(identity: alice, record: SessionRecord.installing(session.state, into: nil), signedPrekeys: [],
                                    oneTimePrekeys: [], pinned: session.identityToPin, listed: nil, now: 1_764_000_000),
            "bob": PairwiseDevice(identity: bob, record: nil, signedPrekeys: [spk], oneTimePrekeys: opk.map { [$0] } ?? [],
                                  pinned: nil, listed: alice.publicIdentity, now: 1_764_000_000),
        ]
        var sends: [Int: [UInt8]] = [:], plaintexts: [Int: [UInt8]] = [:]
        for (position, event) in try test.list("events").enumerated() {
            let what = "\(test.label) event \(position)"
            let party = try event.text("party")
            let device = try #require(devices[party], "\(what): unknown party")
            let index = try #require(event["index"]?.int, "\(what): index")
            tally.events += 1
            if try event.text("event") == "send" {
                let plaintext = try event.hex("plaintext")
                let (message, next) = try device.sending(plaintext)
                #expect(try message == event.hex("message"), "\(what): message differs")
                // Prekey form while Alice has decrypted nothing from Bob, else normal form.
                let expectedType: UInt8 = party == "alice" && device.record?.current.awaitingReply == true ? 0x02 : 0x01
                #expect(message.first == expectedType, "\(what): wrong message form")
                devices[party] = next
                sends[index] = message
                plaintexts[index] = plaintext
                continue
            }
            let bytes = try event["message"] != nil ? event.hex("message") : #require(sends[index], "\(what): no send \(index)")
            let newRatchet = try event.hex("newRatchetPrivate")
            let scripted = ScriptedRandom(newRatchet)
            if try event.text("result") == "valid" {
                let (plaintext, next) = try device.receiving(bytes, using: scripted)
                #expect(try plaintext == event.hex("plaintext"), "\(what): plaintext differs")
                #expect(plaintext == plaintexts[index], "\(what): not the plaintext of send \(index)")
                #expect(scripted.requested == newRatchet.count, "\(what): drew \(scripted.requested) bytes, the vector has \(newRatchet.count)")
                devices[party] = next
            } else {
                let before = device.stateBytes
                ProtocolReplay.expectRefusal(event["failure"]?.string, what) { _ = try device.receiving(bytes, using: scripted) }
                #expect(devices[party]?.stateBytes == before, "\(what): a refusal changed state")
                tally.invalid += 1
            }
        }
    }
}
