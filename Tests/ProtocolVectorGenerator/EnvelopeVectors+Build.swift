import E2EEConformance
import E2EECrypto

extension JSONObjectBuilder {
    func text(_ key: String) throws -> String {
        guard case .string(let value)? = self[key] else { throw GeneratorError("missing \(key)") }
        return value
    }

    func hex(_ key: String) throws -> [UInt8] { try hexBytes(text(key)) }

    func integer(_ key: String) throws -> Int64 {
        guard case .int(let value)? = self[key] else { throw GeneratorError("missing \(key)") }
        return value
    }

    func list(_ key: String) throws -> [[(String, VectorJSON)]] {
        guard case .array(let items)? = self[key] else { throw GeneratorError("missing \(key)") }
        return try items.map {
            guard case .object(let pairs) = $0 else { throw GeneratorError("\(key) item is not an object") }
            return pairs
        }
    }
}

extension EnvelopeVectors {
    static func entryList(_ test: JSONObjectBuilder) throws -> [(deviceID: String, plaintext: [UInt8])] {
        try test.list("recipients").map { pairs in
            var item = JSONObjectBuilder()
            for (key, value) in pairs { item.set(key, value) }
            return (try item.text("deviceId"), try item.hex("entryPlaintext"))
        }
    }

    static func openDM(_ test: JSONObjectBuilder) throws -> [UInt8] {
        try EnvelopeReceiver.openDM(channelID: test.text("channelId"), senderDeviceID: test.text("senderDeviceId"),
                                    content: test.text("content"), entries: entryList(test))
    }

    static func openGroup(_ test: JSONObjectBuilder) throws -> [UInt8] {
        try EnvelopeReceiver.openGroup(channelID: test.text("channelId"), senderDeviceID: test.text("senderDeviceId"), content: test.text("content"),
                                       keyID: UInt32(test.integer("keyId")), iteration: UInt32(test.integer("iteration")),
                                       chainKey: test.hex("chainKey"), signingPublic: test.hex("signingPublic"))
    }

    static func openSKD(_ test: JSONObjectBuilder) throws {
        let devices = try test.list("recipients").map { pairs -> String in
            guard case .string(let id)? = pairs.first(where: { $0.0 == "deviceId" })?.1 else { throw GeneratorError("deviceId") }
            return id
        }
        _ = try EnvelopeReceiver.openSKD(channelID: test.text("channelId"), senderDeviceID: test.text("senderDeviceId"),
                                         content: test.text("content"), recipients: devices, skdPlaintext: test.hex("skdPlaintext"))
    }

    static func build() throws -> VectorFileBuilder {
        var file = VectorFileBuilder(fileName: "envelopes_test.json", algorithm: "E2EE-ENVELOPE", header: [
            "Envelopes (PROTOCOL.md §5, §8): one of each kind from fixed keys, altered ones a receiver refuses,",
            "and malformed content. MalformedEnvelopeTest: the channel's encryption type is the one contentType belongs to.",
        ])
        let dm = try dmCase("dm-1", recipients: 2), dm2 = try dmCase("dm-2", recipients: 1)
        let group = try groupCase("group-1", iteration: 0), group2 = try groupCase("group-2", iteration: 5)
        let skd = try skdCase("skd-1", iteration: 3)
        for (test, comment) in [(dm, "DM to 2 devices"), (dm2, "DM to 1 device")] {
            guard try openDM(test) == test.hex("payload") else { throw GeneratorError("DM does not open") }
            file.add(VectorTest(groupType: "DmEnvelopeTest", comment: comment, fields: test))
        }
        let other = try RecordingRandom(seedLabel: "e2ee-vectors/envelopes/other").uuid().text
        let stranger = try RecordingRandom(seedLabel: "e2ee-vectors/envelopes/stranger").uuid().text
        try addDMAlterations(&file, dm, other: other, stranger: stranger)
        for (test, comment) in [(group, "group message at iteration 0"), (group2, "group message at iteration 5")] {
            guard try openGroup(test) == test.hex("payload") else { throw GeneratorError("group message does not open") }
            file.add(VectorTest(groupType: "GroupEnvelopeTest", comment: comment, fields: test))
        }
        try addGroupAlterations(&file, group, other: other)
        try openSKD(skd)
        file.add(VectorTest(groupType: "SkdEnvelopeTest", comment: "SKD at iteration 3 to 2 devices", fields: skd))
        try addSKDAlterations(&file, skd, other: other)
        try addMalformed(&file, dm: dm, group: group, skd: skd)
        return file
    }

    static func altered(_ test: JSONObjectBuilder, envelope: [UInt8]? = nil, _ changes: [(String, VectorJSON)] = []) -> JSONObjectBuilder {
        var out = test
        if let envelope {
            out.setHex("envelope", envelope)
            out.set("content", Base64.encode(envelope))
        }
        for (key, value) in changes { out.set(key, value) }
        return out
    }

    static func addDMAlterations(_ file: inout VectorFileBuilder, _ dm: JSONObjectBuilder, other: String, stranger: String) throws {
        let envelope = try dm.hex("envelope"), ct = try dm.hex("payloadCiphertext")
        let badCT = ct.flipping(0)
        let badEntry = [0x01] + (try dm.hex("payloadKey")) + SHA256.hash(try dm.hex("payloadNonce") + badCT)
        let entries = try dm.list("recipients")
        func withEntries(_ entry: (Int, [UInt8]) -> [UInt8]) throws -> VectorJSON {
            .array(try entries.enumerated().map { index, pairs in
                var item = JSONObjectBuilder()
                for (key, value) in pairs { item.set(key, value) }
                item.setHex("entryPlaintext", entry(index, try item.hex("entryPlaintext")))
                return item.json
            })
        }
        let cases: [(String, String, String, JSONObjectBuilder)] = [
            ("ModifiedKeyCommit", "one bit of key_commit flipped", "keyCommitMismatch", altered(dm, envelope: envelope.flipping(30))),
            ("ModifiedPayloadCiphertext", "payload_ct altered and the entry hash recomputed over it", "badTag",
             altered(dm, envelope: Array(envelope.dropLast(ct.count)) + badCT, [("recipients", try withEntries { _, _ in badEntry })])),
            ("ModifiedEntryHash", "the entry plaintext's payload hash altered", "keyCommitMismatch",
             altered(dm, [("recipients", try withEntries { _, entry in entry.flipping(64) })])),
            ("WrongChannel", "opened in another channel than it was made for", "badTag", altered(dm, [("channelId", .string(other))])),
            ("SenderMismatch", "senderDeviceId differs from the envelope's", "senderMismatch", altered(dm, [("senderDeviceId", .string(stranger))])),
        ]
        for (flag, meaning, expected, test) in cases {
            file.note(flag, meaning)
            let failure = try refusal(expected, "DM \(flag)") { _ = try openDM(test) }
            file.add(VectorTest(groupType: "DmEnvelopeTest", comment: meaning, flags: [flag], fields: test, failure: failure))
        }
    }

    static func addGroupAlterations(_ file: inout VectorFileBuilder, _ group: JSONObjectBuilder, other: String) throws {
        let envelope = try group.hex("envelope")
        let seed = try Ed25519.PrivateKey(seed: SecretBytes(copying: group.hex("signingSeed")))
        let head = Array(envelope[0..<GroupEnvelope.headerLength])
        let ciphertext = try group.hex("ciphertext")
        let forgedCT = ciphertext.flipping(3)
        let channel = try WireUUID(text: group.text("channelId"))
        let forgedSig = seed.signature(for: Array("e2ee-group-sig-v2".utf8) + channel.bytes + head + forgedCT)
        let otherNonceHead = head.flipping(GroupEnvelope.headerLength - 1)
        let otherNonceSig = seed.signature(for: Array("e2ee-group-sig-v2".utf8) + channel.bytes + otherNonceHead + ciphertext)
        let cases: [(String, String, String, JSONObjectBuilder)] = [
            ("ModifiedGroupSignature", "one bit of the group signature flipped", "badSignature",
             altered(group, envelope: envelope.flipping(envelope.count - 1))),
            ("ModifiedGroupCiphertext", "group ct altered and re-signed", "badTag",
             altered(group, envelope: head + forgedCT + forgedSig, [("ciphertext", .string(hexString(forgedCT))), ("signature", .string(hexString(forgedSig)))])),
            ("ModifiedGroupNonce", "group nonce altered and re-signed", "badTag",
             altered(group, envelope: otherNonceHead + ciphertext + otherNonceSig,
                     [("nonce", .string(hexString(Array(otherNonceHead[26...])))), ("signature", .string(hexString(otherNonceSig)))])),
            ("WrongChannel", "opened in another channel than it was made for", "badSignature", altered(group, [("channelId", .string(other))])),
        ]
        for (flag, meaning, expected, test) in cases {
            file.note(flag, meaning)
            let failure = try refusal(expected, "group \(flag)") { _ = try openGroup(test) }
            file.add(VectorTest(groupType: "GroupEnvelopeTest", comment: meaning, flags: [flag], fields: test, failure: failure))
        }
    }

    static func addSKDAlterations(_ file: inout VectorFileBuilder, _ skd: JSONObjectBuilder, other: String) throws {
        let plaintext = try skd.hex("skdPlaintext")
        let otherChannel = try WireUUID(text: other).bytes
        let cases: [(String, String, String, JSONObjectBuilder)] = [
            ("SkdChannelMismatch", "the SKD names another channel", "channelMismatch",
             altered(skd, [("skdPlaintext", .string(hexString([plaintext[0]] + otherChannel + plaintext[17...])))])),
            ("SkdSmallOrderSigningKey", "SK_sig_pub in the SKD is the neutral point", "invalidKey",
             altered(skd, [("skdPlaintext", .string(hexString(Array(plaintext[0..<57]) + X3DHVectors.ed25519Neutral)))])),
        ]
        for (flag, meaning, expected, test) in cases {
            file.note(flag, meaning)
            let failure = try refusal(expected, "SKD \(flag)") { try openSKD(test) }
            file.add(VectorTest(groupType: "SkdEnvelopeTest", comment: meaning, flags: [flag], fields: test, failure: failure))
        }
    }
}
