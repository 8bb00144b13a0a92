import E2EEConformance
@testable import E2EECrypto

/// Transfer record and chunk cases of `link_test.json`.
enum TransferRecordVectors {
    static func records(_ keys: LinkVectors.Keys) throws -> [(String, TransferRecord)] {
        let blob = keys.newIdentity.publicIdentity, primaryBlob = keys.primaryIdentity.publicIdentity
        let certificate = try keys.certificate()
        let contactCertificate = try DeviceCertificate.issue(by: keys.contactKey, userID: keys.contact, deviceID: keys.message,
                                                             identity: primaryBlob, epoch: 4, notAfter: LinkVectors.Keys.notAfter)
        let payload = SecretBytes(copying: Array(#"{"v":1,"id":"00000000-0000-4000-8000-000000000001","ts":1766000000000,"text":"hi"}"#.utf8))
        return [
            ("own device with its certificate", .trust(.ownDevice(deviceID: keys.newDevice, identity: blob, certificate: certificate))),
            ("own device with the zero certificate", .trust(.ownDevice(deviceID: keys.primary, identity: primaryBlob, certificate: .zero))),
            ("channel: a DM created or opened", .trust(.channel(channelID: keys.channel, kind: .dm, standing: .created))),
            ("channel: a group left", .trust(.channel(channelID: keys.transferChannel, kind: .group, standing: .left))),
            ("DM participant", .trust(.dmParticipant(channelID: keys.channel, userID: keys.contact))),
            ("approved member", .trust(.approvedMember(channelID: keys.transferChannel, userID: keys.contact))),
            ("a member held in one channel", .trust(.hold(channelID: keys.channel, userID: keys.contact, deviceID: nil, state: .held))),
            ("a device declined in every channel", .trust(.hold(channelID: nil, userID: keys.contact, deviceID: keys.message, state: .declined))),
            ("contact key pinned, with its certificate", .trust(.contactKey(ContactKeyRecord(
                userID: keys.contact, userKey: keys.contactKey.publicKey, state: .pinned, userConflicted: false, seenUntil: LinkVectors.Keys.notAfter,
                seenAt: 1_765_000_000, highestEpoch: 4, deviceID: keys.message, identity: primaryBlob, certificate: contactCertificate)))),
            ("contact key listed while the user is conflicted", .trust(.contactKey(ContactKeyRecord(
                userID: keys.contact, userKey: keys.userKey.publicKey, state: .listed, userConflicted: true, seenUntil: 0, seenAt: 1_765_000_000,
                highestEpoch: 0, deviceID: keys.newDevice, identity: blob, certificate: certificate)))),
            ("a legacy own device with its lapse date", .trust(.deviceWithoutCertificate(userID: keys.user, deviceID: keys.primary,
                                                                                          identity: primaryBlob, until: 1_768_000_000))),
            ("a contact's device without a certificate, no end", .trust(.deviceWithoutCertificate(userID: keys.contact, deviceID: keys.message,
                                                                                                   identity: blob, until: nil))),
            ("a message, edited", .message(try MessageRecord(channelID: keys.channel, messageID: keys.message, senderID: keys.contact,
                                                             senderDeviceID: keys.newDevice, createdAt: 1_766_000_000_123_456, edited: true, payload: payload))),
            ("a message with a 65,536-byte payload: len 65,609", .message(try MessageRecord(
                channelID: keys.channel, messageID: keys.request, senderID: keys.user, senderDeviceID: keys.primary, createdAt: 0, edited: false,
                payload: SecretBytes(copying: [UInt8](repeating: 0x61, count: ProtocolLimits.maxPayloadBytes))))),
            ("deleted", .deleted(channelID: keys.channel, messageID: keys.message)),
        ]
    }

    static func add(to file: inout VectorFileBuilder, _ keys: LinkVectors.Keys) throws {
        let all = try records(keys)
        for (comment, record) in all {
            var fields = JSONObjectBuilder()
            fields.set("fields", LinkVectors.json(LinkVectorFields.of(record)))
            fields.setHex("record", bytesOf(record.encoded()))
            file.add(VectorTest(groupType: "TransferRecordTest", comment: comment, fields: fields))
        }
        let encoded = all.map { bytesOf($0.1.encoded()) }
        for bad in refusals(encoded) {
            file.note(bad.flag, bad.meaning)
            let failure = try refusal(bad.failure, "transfer record \(bad.flag)") { _ = try TransferRecord.decode(SecretBytes(copying: bad.bytes)) }
            var fields = JSONObjectBuilder()
            fields.set("fields", .object([]))
            fields.setHex("record", bad.bytes)
            file.add(VectorTest(groupType: "TransferRecordTest", comment: bad.meaning, flags: [bad.flag], fields: fields, failure: failure))
        }
        addChunks(to: &file, encoded)
    }

    static func refusals(_ encoded: [[UInt8]]) -> [LinkPlaintextVectors.Bad] {
        let own = encoded[0], channel = encoded[2], hold = encoded[6], contact = encoded[8], message = encoded[12], deleted = encoded[14]
        func replacing(_ bytes: [UInt8], at offset: Int, with new: [UInt8]) -> [UInt8] {
            var out = bytes
            out.replaceSubrange(offset..<(offset + new.count), with: new)
            return out
        }
        typealias Bad = LinkPlaintextVectors.Bad
        return [
            Bad(flag: "UnknownRecordKind", meaning: "record kind 0x04", failure: "unsupportedVersion", bytes: replacing(deleted, at: 0, with: [0x04])),
            Bad(flag: "RecordKindZero", meaning: "record kind 0x00", failure: "unsupportedVersion", bytes: replacing(deleted, at: 0, with: [0x00])),
            Bad(flag: "RecordVersionTwo", meaning: "record version 2", failure: "unsupportedVersion", bytes: replacing(deleted, at: 1, with: [0x02])),
            Bad(flag: "RecordVersionZero", meaning: "record version 0", failure: "unsupportedVersion", bytes: replacing(deleted, at: 1, with: [0x00])),
            Bad(flag: "LengthAboveLimit", meaning: "len 65,610 with no body behind it: refused before reading", failure: "limitExceeded",
                bytes: [0x02, 0x01, 0x00, 0x01, 0x00, 0x4a]),
            Bad(flag: "LengthMax", meaning: "len 4294967295 with no body behind it", failure: "limitExceeded", bytes: [0x01, 0x01, 0xff, 0xff, 0xff, 0xff]),
            Bad(flag: "TruncatedHead", meaning: "a record head of 5 bytes", failure: "truncated", bytes: Array(deleted[0..<5])),
            Bad(flag: "BodyCut", meaning: "len 32 with 31 body bytes", failure: "truncated", bytes: Array(deleted.dropLast())),
            Bad(flag: "TrailingAfterRecord", meaning: "a byte after a whole record", failure: "trailingBytes", bytes: deleted + [0]),
            Bad(flag: "DeletedBodyLong", meaning: "a deleted record with len 33", failure: "trailingBytes",
                bytes: [0x03, 0x01, 0, 0, 0, 33] + deleted[6...] + [0]),
            Bad(flag: "ReservedSubKind", meaning: "trust sub-kind 0x07 (reserved for group state)", failure: "unsupportedVersion",
                bytes: replacing(channel, at: 6, with: [0x07])),
            Bad(flag: "UnknownSubKind", meaning: "trust sub-kind 0x09", failure: "unsupportedVersion", bytes: replacing(channel, at: 6, with: [0x09])),
            Bad(flag: "SubKindZero", meaning: "trust sub-kind 0x00", failure: "unsupportedVersion", bytes: replacing(channel, at: 6, with: [0x00])),
            Bad(flag: "TrustBodyShort", meaning: "a channel record with len 18", failure: "truncated", bytes: [0x01, 0x01, 0, 0, 0, 18] + channel[6..<24]),
            Bad(flag: "TrustBodyLong", meaning: "a channel record with len 20", failure: "trailingBytes", bytes: [0x01, 0x01, 0, 0, 0, 20] + channel[6...] + [0]),
            Bad(flag: "EmptyTrustBody", meaning: "a trust record with len 0", failure: "truncated", bytes: [0x01, 0x01, 0, 0, 0, 0]),
            Bad(flag: "UnknownChannelKind", meaning: "channel kind 3", failure: "malformed", bytes: replacing(channel, at: 23, with: [3])),
            Bad(flag: "UnknownStanding", meaning: "channel standing 6", failure: "malformed", bytes: replacing(channel, at: 24, with: [6])),
            Bad(flag: "UnknownHoldState", meaning: "hold state 3", failure: "malformed", bytes: replacing(hold, at: 6 + 49, with: [3])),
            Bad(flag: "UnknownContactKeyState", meaning: "contact key state 6", failure: "malformed", bytes: replacing(contact, at: 6 + 49, with: [6])),
            Bad(flag: "ConflictedFlagTwo", meaning: "user_conflicted 2", failure: "malformed", bytes: replacing(contact, at: 6 + 50, with: [2])),
            Bad(flag: "SmallOrderContactKey", meaning: "a contact key that is the neutral point", failure: "invalidKey",
                bytes: replacing(contact, at: 6 + 17, with: X3DHVectors.ed25519Neutral)),
            Bad(flag: "BadIdentityBlobVersion", meaning: "an own device whose identity blob starts 0x02", failure: "unsupportedVersion",
                bytes: replacing(own, at: 6 + 17, with: [0x02])),
            Bad(flag: "ZeroEpochCertificate", meaning: "an own device whose certificate has epoch 0", failure: "malformed",
                bytes: replacing(own, at: 6 + 17 + 65 + 32, with: [0, 0, 0, 0])),
            Bad(flag: "UnknownMessageFlag", meaning: "message flags 0x02", failure: "malformed", bytes: replacing(message, at: 6 + 72, with: [0x02])),
            Bad(flag: "ShortMessageBody", meaning: "a message record with len 72", failure: "truncated",
                bytes: [0x02, 0x01, 0, 0, 0, 72] + message[6..<78]),
        ]
    }

    static func addChunks(to file: inout VectorFileBuilder, _ encoded: [[UInt8]]) {
        let trust = Array(encoded[0..<12]), history = [encoded[12], encoded[14]]
        for (comment, records) in [("the trust records of a phase, in order", trust), ("a message and a deletion", history), ("no records", [])] {
            var fields = JSONObjectBuilder()
            fields.set("records", .array(records.map { .string(hexString($0)) }))
            fields.setHex("chunk", records.flatMap { $0 })
            fields.setHex("digest", SHA256.hash(records.flatMap { $0 }))
            file.add(VectorTest(groupType: "TransferChunkTest", comment: comment, fields: fields))
        }
        let whole = trust.flatMap { $0 }
        for (flag, meaning, expected, bytes) in [
            ("ChunkEndsInsideRecord", "the last record of a chunk cut by one byte", "truncated", Array(whole.dropLast())),
            ("ChunkEndsInsideHead", "three bytes of a next record's head after whole records", "truncated", whole + [0x01, 0x01, 0x00]),
            ("ChunkWithBadRecord", "whole records, then one of kind 0x04", "unsupportedVersion", whole + [0x04] + encoded[14].dropFirst()),
        ] {
            file.note(flag, "chunk: \(meaning)")
            var fields = JSONObjectBuilder()
            fields.set("records", .array([]))
            fields.setHex("chunk", bytes)
            fields.setHex("digest", [])
            file.add(VectorTest(groupType: "TransferChunkTest", comment: meaning, flags: [flag], fields: fields, failure: expected))
        }
    }
}
