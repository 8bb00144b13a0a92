import E2EECrypto

/// `E2EE-ENVELOPE` (docs/spec/protocol.md §4-§5): DM, group and SKD envelopes parsed and checked against
/// their parts, then opened as a receiver would; malformed contents and every invalid case must
/// be refused with the `failure` the case names.
struct EnvelopeRunner: AlgorithmRunner {
    let algorithms: Set<String> = ["E2EE-ENVELOPE"]

    func attempt(_ vector: VectorCase) throws -> Attempt {
        guard let type = vector.group["type"]?.string else { throw VectorFieldError(field: "type") }
        let open: () throws -> Void
        switch type {
        case "DmEnvelopeTest": open = { try Self.openDM(vector) }
        case "GroupEnvelopeTest": open = { try Self.openGroup(vector) }
        case "SkdEnvelopeTest": open = { try Self.openSKD(vector) }
        case "MalformedEnvelopeTest":
            open = { _ = try EnvelopeReceiver.parse(content: vector.text("content"), contentType: vector.text("contentType")) }
        default: throw VectorFieldError(field: "type (unknown group type \(type))")
        }
        guard vector.result == .valid else { return try refusal(of: vector, open) }
        return refusing {
            try open()
            return .matched
        }
    }

    /// A valid DM is checked against its parts; then it is opened for every recipient.
    private static func openDM(_ vector: VectorCase) throws {
        let recipients = try vector.list("recipients")
        let entries = try recipients.map { (deviceID: try $0.text("deviceId"), plaintext: try $0.hex("entryPlaintext")) }
        let content = try vector.text("content")
        if vector.result == .valid {
            guard case .dm(let envelope) = try EnvelopeReceiver.parse(content: content, contentType: "e2ee.dm") else {
                throw Mismatch(detail: "content is not a DM")
            }
            let key = try vector.hex("payloadKey"), nonce = try vector.hex("payloadNonce")
            try check(envelope.encoded() == vector.hex("envelope"), "envelope")
            try check(envelope.senderDevice.text == vector.text("senderDeviceId"), "senderDeviceId")
            try check(envelope.payloadNonce == nonce, "payloadNonce")
            try check(envelope.keyCommit == vector.hex("keyCommit"), "keyCommit")
            try check(envelope.keyCommit == SHA256.hash(Array("e2ee-dm-key-v1".utf8) + key), "keyCommit is not the hash of payloadKey")
            try check(envelope.payloadCiphertext == vector.hex("payloadCiphertext"), "payloadCiphertext")
            for item in recipients {
                let message = try envelope.pairwiseMessage(for: WireUUID(text: item.text("deviceId")))
                try check(message == item.hex("pairwiseMessage"), "pairwiseMessage")
                _ = try PairwiseMessage(bytes: message)
                try check(item.hex("entryPlaintext") == [0x01] + key + SHA256.hash(nonce + envelope.payloadCiphertext), "entryPlaintext")
            }
        }
        let payload = try EnvelopeReceiver.openDM(channelID: vector.text("channelId"), senderDeviceID: vector.text("senderDeviceId"),
                                                  content: content, entries: entries)
        if vector.result == .valid { try check(payload == vector.hex("payload"), "payload") }
    }

    /// A valid group message is checked against its parts; then it is decrypted under the
    /// sender key the case names.
    private static func openGroup(_ vector: VectorCase) throws {
        let content = try vector.text("content")
        let keyID = UInt32(truncatingIfNeeded: try vector.int("keyId")), iteration = UInt32(truncatingIfNeeded: try vector.int("iteration"))
        if vector.result == .valid {
            guard case .group(let envelope) = try EnvelopeReceiver.parse(content: content, contentType: "e2ee.group") else {
                throw Mismatch(detail: "content is not a group message")
            }
            try check(envelope.encoded() == vector.hex("envelope"), "envelope")
            try check(envelope.ciphertext == vector.hex("ciphertext") && envelope.signature == vector.hex("signature"), "ciphertext or signature")
            try check(envelope.nonce == vector.hex("nonce"), "nonce")
            try check(envelope.keyID == keyID && envelope.iteration == iteration, "keyId or iteration")
            let signer = try Ed25519.PrivateKey(seed: SecretBytes(copying: vector.hex("signingSeed")))
            try check(signer.publicKey.rawRepresentation == vector.hex("signingPublic"), "signingPublic")
        }
        let payload = try EnvelopeReceiver.openGroup(
            channelID: vector.text("channelId"), senderDeviceID: vector.text("senderDeviceId"), content: content,
            keyID: keyID, iteration: iteration, chainKey: vector.hex("chainKey"), signingPublic: vector.hex("signingPublic"))
        if vector.result == .valid { try check(payload == vector.hex("payload"), "payload") }
    }

    /// An SKD is opened for every recipient and its plaintext processed; a valid one is then
    /// checked against its parts.
    private static func openSKD(_ vector: VectorCase) throws {
        let recipients = try vector.list("recipients")
        let content = try vector.text("content"), skd = try vector.hex("skdPlaintext")
        let distribution = try EnvelopeReceiver.openSKD(
            channelID: vector.text("channelId"), senderDeviceID: vector.text("senderDeviceId"), content: content,
            recipients: recipients.map { try $0.text("deviceId") }, skdPlaintext: skd)
        guard vector.result == .valid else { return }
        guard case .senderKeyDistribution(let envelope) = try EnvelopeReceiver.parse(content: content, contentType: "e2ee.skd") else {
            throw Mismatch(detail: "content is not an SKD")
        }
        try check(envelope.encoded() == vector.hex("envelope"), "envelope")
        for item in recipients {
            try check(envelope.pairwiseMessage(for: WireUUID(text: item.text("deviceId"))) == item.hex("pairwiseMessage"), "pairwiseMessage")
        }
        try check(PairwisePlaintext.senderKeyDistribution(distribution).encoded().unprotectedCopy() == skd, "skdPlaintext")
        try check(distribution.channel.text == vector.text("channelId"), "channelId")
        try check(distribution.keyID == UInt32(truncatingIfNeeded: try vector.int("keyId"))
                  && distribution.iteration == UInt32(truncatingIfNeeded: try vector.int("iteration")), "keyId or iteration")
        try check(distribution.signingPublicKey.rawRepresentation == vector.hex("signingPublic"), "signingPublic")
        let chainKeyRange = (1 + 16 + 8)..<(1 + 16 + 8 + 32)
        try check(skd.count >= chainKeyRange.upperBound && Array(skd[chainKeyRange]) == vector.hex("chainKey"), "chainKey")
    }
}
