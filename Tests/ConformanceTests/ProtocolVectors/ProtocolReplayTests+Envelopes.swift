import E2EEConformance
import E2EECrypto
import E2EEProtocolVectorGenerator
import E2EETestSupport
import Testing

extension ProtocolReplayTests {
    @Test("envelopes_test.json")
    func envelopes() throws {
        let file = try ProtocolReplay.file("envelopes_test.json")
        var tally = ReplayTally()
        for test in file.cases {
            let type = try #require(test.group["type"]?.string)
            let open: () throws -> Void
            switch type {
            case "DmEnvelopeTest": open = { try replayDM(test) }
            case "GroupEnvelopeTest": open = { try replayGroup(test) }
            case "SkdEnvelopeTest": open = { try replaySKD(test) }
            case "MalformedEnvelopeTest":
                open = { _ = try EnvelopeReceiver.parse(content: test.text("content"), contentType: test.text("contentType")) }
            default:
                Issue.record("\(test.label): unknown group type \(type)")
                continue
            }
            if test.result == .valid {
                try open()
                tally.valid += 1
            } else {
                ProtocolReplay.expectRefusal(test.failure, test.label, open)
                tally.invalid += 1
            }
        }
        #expect(tally.valid >= 3 && tally.invalid > 0)
        ProtocolReplay.summary(file, tally)
    }

    /// Checks the envelope against its parts, then opens it for every recipient.
    private func replayDM(_ test: VectorCase) throws {
        let recipients = try test.list("recipients")
        let entries = try recipients.map { (deviceID: try $0.text("deviceId"), plaintext: try $0.hex("entryPlaintext")) }
        if test.result == .valid {
            guard case .dm(let envelope) = try EnvelopeReceiver.parse(content: test.text("content"), contentType: "e2ee.dm") else {
                throw VectorFieldError(field: "content (not a DM)")
            }
            let key = try test.hex("payloadKey"), nonce = try test.hex("payloadNonce")
            #expect(try envelope.encoded() == test.hex("envelope"), "\(test.label)")
            #expect(try envelope.senderDevice.text == test.text("senderDeviceId"), "\(test.label)")
            #expect(envelope.payloadNonce == nonce, "\(test.label)")
            #expect(try envelope.keyCommit == test.hex("keyCommit"), "\(test.label)")
            #expect(envelope.keyCommit == SHA256.hash(Array("e2ee-dm-key-v1".utf8) + key), "\(test.label)")
            #expect(try envelope.payloadCiphertext == test.hex("payloadCiphertext"), "\(test.label)")
            for item in recipients {
                let message = try envelope.pairwiseMessage(for: WireUUID(text: item.text("deviceId")))
                #expect(try message == item.hex("pairwiseMessage"), "\(test.label)")
                _ = try PairwiseMessage(bytes: message)
                #expect(try item.hex("entryPlaintext") == [0x01] + key + SHA256.hash(nonce + envelope.payloadCiphertext), "\(test.label)")
            }
        }
        let payload = try EnvelopeReceiver.openDM(channelID: test.text("channelId"), senderDeviceID: test.text("senderDeviceId"),
                                                  content: test.text("content"), entries: entries)
        #expect(try payload == test.hex("payload"), "\(test.label)")
    }

    private func replayGroup(_ test: VectorCase) throws {
        if test.result == .valid {
            guard case .group(let envelope) = try EnvelopeReceiver.parse(content: test.text("content"), contentType: "e2ee.group") else {
                throw VectorFieldError(field: "content (not a group message)")
            }
            #expect(try envelope.encoded() == test.hex("envelope"), "\(test.label)")
            #expect(try envelope.ciphertext == test.hex("ciphertext") && envelope.signature == test.hex("signature"), "\(test.label)")
            #expect(try Int(envelope.keyID) == test.int("keyId") && Int(envelope.iteration) == test.int("iteration"), "\(test.label)")
            let signer = try Ed25519.PrivateKey(seed: SecretBytes(copying: test.hex("signingSeed")))
            #expect(try signer.publicKey.rawRepresentation == test.hex("signingPublic"), "\(test.label)")
        }
        let payload = try EnvelopeReceiver.openGroup(
            channelID: test.text("channelId"), senderDeviceID: test.text("senderDeviceId"), content: test.text("content"),
            keyID: UInt32(test.int("keyId")), iteration: UInt32(test.int("iteration")),
            chainKey: test.hex("chainKey"), signingPublic: test.hex("signingPublic"))
        #expect(try payload == test.hex("payload"), "\(test.label)")
    }

    private func replaySKD(_ test: VectorCase) throws {
        let recipients = try test.list("recipients")
        let distribution = try EnvelopeReceiver.openSKD(
            channelID: test.text("channelId"), senderDeviceID: test.text("senderDeviceId"), content: test.text("content"),
            recipients: recipients.map { try $0.text("deviceId") }, skdPlaintext: test.hex("skdPlaintext"))
        guard test.result == .valid else { return }
        guard case .senderKeyDistribution(let envelope) = try EnvelopeReceiver.parse(content: test.text("content"), contentType: "e2ee.skd") else {
            throw VectorFieldError(field: "content (not an SKD)")
        }
        #expect(try envelope.encoded() == test.hex("envelope"), "\(test.label)")
        for item in recipients {
            #expect(try envelope.pairwiseMessage(for: WireUUID(text: item.text("deviceId"))) == item.hex("pairwiseMessage"), "\(test.label)")
        }
        #expect(try PairwisePlaintext.senderKeyDistribution(distribution).encoded().unprotectedCopy() == test.hex("skdPlaintext"), "\(test.label)")
        #expect(try distribution.channel.text == test.text("channelId"), "\(test.label)")
        #expect(try Int(distribution.keyID) == test.int("keyId") && Int(distribution.iteration) == test.int("iteration"), "\(test.label)")
        #expect(try distribution.signingPublicKey.rawRepresentation == test.hex("signingPublic"), "\(test.label)")
        let skd = try test.hex("skdPlaintext")
        #expect(try Array(skd[(1 + 16 + 8)..<(1 + 16 + 8 + 32)]) == test.hex("chainKey"), "\(test.label): chain key")
    }
}
