@testable import E2EECrypto

/// `envelopes_test.json`: one of each envelope (DM, group, SKD), altered ones a receiver
/// refuses, and malformed `content`. Seeds `"e2ee-vectors/envelopes/<label>"` give the UUIDs,
/// keys and `K`/nonce in call order; each recipient's pairwise message comes from a fresh
/// session seeded `"e2ee-vectors/envelopes/<label>/pairwise/<i>"`.
enum EnvelopeVectors {
    static let timestamp: Int64 = 1_764_000_000_000

    /// The first message of a fresh session carrying `plaintext` (a prekey message).
    static func pairwiseMessage(_ seedLabel: String, _ plaintext: SecretBytes) throws -> [UInt8] {
        let random = RecordingRandom(seedLabel: seedLabel)
        let setup = try X3DHSetup(random: random, opkID: 3)
        let (session, _, _) = try setup.initiate(random: random)
        return try SessionRecord.installing(session.state, into: nil).encrypt(plaintext, using: random).message
    }

    static func payload(_ random: RecordingRandom, _ text: String) throws -> [UInt8] {
        try MessagePayload(id: random.uuid(), timestamp: timestamp, text: text).encodedJSON().unprotectedCopy()
    }

    static func dmCase(_ label: String, recipients count: Int) throws -> JSONObjectBuilder {
        let random = RecordingRandom(seedLabel: "e2ee-vectors/envelopes/" + label)
        let channel = try random.uuid(), sender = try random.uuid()
        let devices = try (0..<count).map { _ in try random.uuid() }
        let payload = try payload(random, "hello, \"world\" \u{2014} \u{1F44B}")
        var entries: [(WireUUID, [UInt8], [UInt8])] = []
        _ = random.take()
        let envelope = try DMEnvelope.seal(payload: payload, channel: channel, senderDevice: sender, recipients: devices, using: random) { device, plaintext in
            let message = try pairwiseMessage("e2ee-vectors/envelopes/\(label)/pairwise/\(entries.count)", plaintext)
            entries.append((device, plaintext.unprotectedCopy(), message))
            return message
        }
        let drawn = random.take()
        guard drawn.count == 44 else { throw GeneratorError("DM seal drew \(drawn.count) bytes") }
        var fields = JSONObjectBuilder()
        fields.set("channelId", channel.text)
        fields.set("senderDeviceId", sender.text)
        fields.setHex("payloadKey", Array(drawn[0..<32]))
        fields.setHex("payloadNonce", Array(drawn[32..<44]))
        fields.setHex("payload", payload)
        fields.setHex("keyCommit", envelope.keyCommit)
        fields.setHex("payloadCiphertext", envelope.payloadCiphertext)
        fields.set("recipients", .array(entries.map { .object([
            ("deviceId", .string($0.0.text)), ("entryPlaintext", .string(hexString($0.1))), ("pairwiseMessage", .string(hexString($0.2))),
        ]) }))
        fields.setHex("envelope", envelope.encoded())
        fields.set("content", Envelope.dm(envelope).content())
        return fields
    }

    static func groupCase(_ label: String, iteration: UInt32) throws -> JSONObjectBuilder {
        let random = RecordingRandom(seedLabel: "e2ee-vectors/envelopes/" + label)
        let channel = try random.uuid(), sender = try random.uuid()
        var state = SenderKeySendingState.generate(channel: channel, retainedKeyIDs: [], using: random)
        let payload = try payload(random, "group message")
        while state.iteration < iteration { state = try state.encrypt(payload, senderDevice: sender, using: random).state }
        _ = random.take()
        let (envelope, _) = try state.encrypt(payload, senderDevice: sender, using: random)
        guard random.take() == envelope.nonce else { throw GeneratorError("the group nonce is not the one drawn") }
        var fields = JSONObjectBuilder()
        fields.set("channelId", channel.text)
        fields.set("senderDeviceId", sender.text)
        fields.set("keyId", state.keyID)
        fields.set("iteration", state.iteration)
        fields.setHex("chainKey", bytesOf(state.chainKey))
        fields.setHex("signingSeed", bytesOf(state.signingKey.seed))
        fields.setHex("payload", payload)
        fields.setHex("nonce", envelope.nonce)
        fields.setHex("signingPublic", state.signingPublicKey.rawRepresentation)
        fields.setHex("ciphertext", envelope.ciphertext)
        fields.setHex("signature", envelope.signature)
        fields.setHex("envelope", envelope.encoded())
        fields.set("content", Envelope.group(envelope).content())
        return fields
    }

    static func skdCase(_ label: String, iteration: UInt32) throws -> JSONObjectBuilder {
        let random = RecordingRandom(seedLabel: "e2ee-vectors/envelopes/" + label)
        let channel = try random.uuid(), sender = try random.uuid()
        let devices = try (0..<2).map { _ in try random.uuid() }
        var state = SenderKeySendingState.generate(channel: channel, retainedKeyIDs: [], using: random)
        while state.iteration < iteration {
            state = try state.encrypt([UInt8](repeating: 0x20, count: 8), senderDevice: sender, using: random).state
        }
        var plaintext: [UInt8] = []
        var entries: [(WireUUID, [UInt8])] = []
        let envelope = try SKDEnvelope.seal(state.distribution, senderDevice: sender, recipients: devices) { device, bytes in
            plaintext = bytes.unprotectedCopy()
            let message = try pairwiseMessage("e2ee-vectors/envelopes/\(label)/pairwise/\(entries.count)", bytes)
            entries.append((device, message))
            return message
        }
        var fields = JSONObjectBuilder()
        fields.set("channelId", channel.text)
        fields.set("senderDeviceId", sender.text)
        fields.set("keyId", state.keyID)
        fields.set("iteration", state.iteration)
        fields.setHex("chainKey", bytesOf(state.chainKey))
        fields.setHex("signingPublic", state.signingPublicKey.rawRepresentation)
        fields.setHex("skdPlaintext", plaintext)
        fields.set("recipients", .array(entries.map { .object([("deviceId", .string($0.0.text)), ("pairwiseMessage", .string(hexString($0.1)))]) }))
        fields.setHex("envelope", envelope.encoded())
        fields.set("content", Envelope.senderKeyDistribution(envelope).content())
        return fields
    }
}
