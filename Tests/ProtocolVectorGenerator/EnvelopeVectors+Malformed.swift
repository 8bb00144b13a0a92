import E2EEConformance
import E2EECrypto

extension EnvelopeVectors {
    /// Malformed `content` strings built from the valid envelopes; each is refused by
    /// ``EnvelopeReceiver/parse(content:contentType:)``.
    static func addMalformed(_ file: inout VectorFileBuilder, dm: JSONObjectBuilder, group: JSONObjectBuilder, skd: JSONObjectBuilder) throws {
        let dmEnv = try dm.hex("envelope"), groupEnv = try group.hex("envelope"), skdEnv = try skd.hex("envelope")
        let sender = Array(dmEnv[2..<18])
        let entryAt = 64 // 2 + 16 + 12 + 32 + 2: the first recipient entry
        let firstLength = Int(dmEnv[entryAt + 16]) << 8 | Int(dmEnv[entryAt + 17])
        let secondAt = entryAt + 18 + firstLength
        let ctAt = dmEnv.count - (try dm.hex("payloadCiphertext")).count
        let b64 = { (bytes: [UInt8]) in Base64.encode(bytes) }
        let dmContent = b64(dmEnv)
        let cases: [(String, String, String, String)] = [
            ("NotBase64", "characters outside the alphabet", "e2ee.dm", "A*=="),
            ("Base64Whitespace", "a line break inside content", "e2ee.dm", String(dmContent.prefix(8)) + "\n" + String(dmContent.dropFirst(8))),
            ("Base64UrlAlphabet", "url-safe alphabet", "e2ee.dm", "-_-_"),
            ("Base64MissingPadding", "padding left out", "e2ee.dm", b64(Array(dmEnv.dropLast((dmEnv.count % 3 == 0) ? 1 : 0))).replacingPadding()),
            ("Base64NonZeroPadding", "non-zero padding bits (QR==)", "e2ee.dm", "QR=="),
            ("ContentTooLong", "524,292 base64 characters", "e2ee.dm", String(repeating: "A", count: 524_292)),
            ("EmptyContent", "no bytes", "e2ee.dm", ""),
            ("UnknownEnvelopeVersion", "first byte 0x04", "e2ee.dm", b64([0x04] + dmEnv[1...])),
            ("UnknownEnvelopeType", "type byte 0x09", "e2ee.dm", b64([dmEnv[0], 0x09] + dmEnv[2...])),
            ("ContentTypeMismatch", "a DM envelope posted as e2ee.group in a sender-keys channel", "e2ee.group", dmContent),
            ("ZeroRecipients", "n = 0", "e2ee.dm", b64(Array(dmEnv[0..<62]) + [0, 0] + dmEnv[secondAt...])),
            ("TooManyRecipients", "n = 1001, checked before any entry", "e2ee.dm", b64(Array(dmEnv[0..<62]) + [0x03, 0xE9] + dmEnv[64...])),
            ("DuplicateRecipient", "the second entry names the first recipient", "e2ee.dm",
             b64(Array(dmEnv[0..<secondAt]) + dmEnv[entryAt..<(entryAt + 16)] + dmEnv[(secondAt + 16)...])),
            ("RecipientIsSender", "an entry addressed to the sending device", "e2ee.dm",
             b64(Array(dmEnv[0..<entryAt]) + sender + dmEnv[(entryAt + 16)...])),
            ("ShortPairwiseMessage", "an entry of 68 bytes", "e2ee.dm",
             b64(Array(dmEnv[0..<(entryAt + 16)]) + [0x00, 0x44] + dmEnv[(entryAt + 18)..<(entryAt + 18 + 68)] + dmEnv[secondAt...])),
            ("EntryPastEnd", "an entry length beyond the envelope", "e2ee.dm",
             b64(Array(dmEnv[0..<(entryAt + 16)]) + [0xFF, 0xFF] + dmEnv[(entryAt + 18)...])),
            ("ShortPayloadCiphertext", "payload_ct of 15 bytes", "e2ee.dm", b64(Array(dmEnv[0..<(ctAt + 15)]))),
            ("LongPayloadCiphertext", "payload_ct of 65,553 bytes", "e2ee.dm", b64(Array(dmEnv[0..<ctAt]) + [UInt8](repeating: 0, count: 65_553))),
            ("TruncatedDmHeader", "ends inside key_commit", "e2ee.dm", b64(Array(dmEnv[0..<40]))),
            ("ShortGroupCiphertext", "group ct of 15 bytes", "e2ee.group",
             b64(Array(groupEnv[0..<GroupEnvelope.headerLength]) + [UInt8](repeating: 0, count: 15) + groupEnv.suffix(64))),
            ("LongGroupCiphertext", "group ct of 65,553 bytes", "e2ee.group",
             b64(Array(groupEnv[0..<GroupEnvelope.headerLength]) + [UInt8](repeating: 0, count: 65_553) + groupEnv.suffix(64))),
            ("TruncatedGroupHeader", "a group envelope of 20 bytes", "e2ee.group", b64(Array(groupEnv[0..<20]))),
            ("TruncatedGroupNonce", "a group envelope that ends inside its nonce", "e2ee.group", b64(Array(groupEnv[0..<32]))),
            ("SkdTrailingBytes", "one byte after the last SKD entry", "e2ee.skd", b64(skdEnv + [0])),
            ("SkdZeroRecipients", "SKD with n = 0", "e2ee.skd", b64(Array(skdEnv[0..<18]) + [0, 0])),
        ]
        let channel = try dm.text("channelId")
        for (flag, meaning, contentType, content) in cases {
            file.note(flag, meaning)
            let failure = try anyRefusal("malformed \(flag)") { _ = try EnvelopeReceiver.parse(content: content, contentType: contentType) }
            var fields = JSONObjectBuilder()
            fields.set("channelId", channel)
            fields.set("contentType", contentType)
            fields.set("content", content)
            file.add(VectorTest(groupType: "MalformedEnvelopeTest", comment: meaning, flags: [flag], fields: fields, failure: failure))
        }
    }
}

extension String {
    /// The string without its trailing `=` padding.
    func replacingPadding() -> String {
        var copy = self
        while copy.hasSuffix("=") { copy.removeLast() }
        return copy
    }
}
