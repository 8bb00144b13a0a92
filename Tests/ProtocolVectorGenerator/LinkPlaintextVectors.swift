import E2EEConformance
@testable import E2EECrypto

/// Link plaintext and link envelope cases of `link_test.json`.
enum LinkPlaintextVectors {
    static func plaintexts(_ keys: LinkVectors.Keys) throws -> [(String, LinkPlaintext)] {
        let certificate = try keys.certificate()
        let manifest = try TransferManifest(transferID: keys.transfer, index: 0, phase: .snapshot, trustCount: 3, recordCount: 5, chunkCount: 2,
                                            truncated: false, digest: SHA256.hash(Array("records".utf8)))
        let phase2 = try TransferManifest(transferID: keys.transfer, index: 3, phase: .changes, trustCount: 0, recordCount: 0, chunkCount: 0,
                                          truncated: true, digest: SHA256.hash([UInt8]()))
        let records = [TransferRecord.trust(.dmParticipant(channelID: keys.channel, userID: keys.contact)),
                       .deleted(channelID: keys.channel, messageID: keys.message)]
        let signature = PrimarySignature.sign(by: keys.userKey, userID: keys.user, senderDevice: keys.primary, recipientDevice: keys.newDevice,
                                              epoch: certificate.epoch, notAfter: certificate.notAfter)
        return [
            ("request", .request(requestID: keys.request, commit: LinkCommitment.commit(to: keys.nonceN))),
            ("accept", .accept(requestID: keys.request, nonce: keys.nonceP)),
            ("reveal", .reveal(requestID: keys.request, nonce: keys.nonceN)),
            ("grant", .grant(try LinkGrant(requestID: keys.request, certificate: certificate, transferID: keys.transfer,
                                           transferChannelID: keys.transferChannel))),
        ] + LinkCancelReason.allCases.map { ("cancel, reason \($0.rawValue) (\($0))", .cancel(id: keys.request, reason: $0)) } + [
            ("recert", .recert(certificate: certificate, primarySignature: signature)),
            ("manifest of phase 1", .manifest(manifest)),
            ("manifest of an empty phase 2, history truncated", .manifest(phase2)),
            ("chunk of two whole records", .chunk(transferID: keys.transfer, index: 1,
                                                  records: SecretBytes(copying: records.flatMap { bytesOf($0.encoded()) }))),
            ("chunk with no records", .chunk(transferID: keys.transfer, index: 2, records: SecretBytes(copying: []))),
            ("ack", .ack(transferID: keys.transfer, nextIndex: 4)),
        ]
    }

    static func add(to file: inout VectorFileBuilder, _ keys: LinkVectors.Keys) throws {
        let all = try plaintexts(keys)
        for (comment, plaintext) in all {
            var fields = JSONObjectBuilder()
            fields.set("fields", LinkVectors.json(LinkVectorFields.of(plaintext)))
            fields.setHex("plaintext", bytesOf(try plaintext.encoded()))
            file.add(VectorTest(groupType: "LinkPlaintextTest", comment: comment, fields: fields))
        }
        for bad in try refusals(all.map { bytesOf(try $0.1.encoded()) }) {
            file.note(bad.flag, bad.meaning)
            let failure = try refusal(bad.failure, "link plaintext \(bad.flag)") { _ = try LinkPlaintext.decode(SecretBytes(copying: bad.bytes)) }
            var fields = JSONObjectBuilder()
            fields.set("fields", .object([]))
            fields.setHex("plaintext", bad.bytes)
            file.add(VectorTest(groupType: "LinkPlaintextTest", comment: bad.meaning, flags: [bad.flag], fields: fields, failure: failure))
        }
        try addEnvelopes(to: &file, keys)
    }

    struct Bad {
        let flag: String, meaning: String, failure: String, bytes: [UInt8]
    }

    /// `encoded` holds the valid plaintexts in ``plaintexts(_:)`` order.
    static func refusals(_ encoded: [[UInt8]]) throws -> [Bad] {
        let request = encoded[0], grant = encoded[3], cancel = encoded[4], recert = encoded[10], manifest = encoded[11]
        let chunk = encoded[13], ack = encoded[15]
        func replacing(_ bytes: [UInt8], at offset: Int, with new: [UInt8]) -> [UInt8] {
            var out = bytes
            out.replaceSubrange(offset..<(offset + new.count), with: new)
            return out
        }
        let zeroID = [UInt8](repeating: 0, count: 16)
        let chunkHead = Array(chunk[0..<22])
        return [
            Bad(flag: "UnknownKind", meaning: "kind 0x0a, 50 bytes", failure: "unsupportedVersion", bytes: replacing(request, at: 1, with: [0x0a])),
            Bad(flag: "ZeroKind", meaning: "kind 0x00, 50 bytes", failure: "unsupportedVersion", bytes: replacing(request, at: 1, with: [0x00])),
            Bad(flag: "OtherTypeByte", meaning: "a request behind type byte 0x01 (a DM key entry's)", failure: "unsupportedVersion",
                bytes: replacing(request, at: 0, with: [0x01])),
            Bad(flag: "EmptyPlaintext", meaning: "no bytes at all", failure: "truncated", bytes: []),
            Bad(flag: "TypeByteOnly", meaning: "the type byte alone", failure: "truncated", bytes: [0x03]),
            Bad(flag: "TruncatedRequest", meaning: "a request of 49 bytes", failure: "truncated", bytes: Array(request.dropLast())),
            Bad(flag: "TrailingRequest", meaning: "a request of 51 bytes", failure: "trailingBytes", bytes: request + [0]),
            Bad(flag: "TrailingGrant", meaning: "a grant of 155 bytes", failure: "trailingBytes", bytes: grant + [0]),
            Bad(flag: "TrailingAck", meaning: "an ack of 23 bytes", failure: "trailingBytes", bytes: ack + [0]),
            Bad(flag: "TruncatedChunk", meaning: "a chunk of 21 bytes (index cut)", failure: "truncated", bytes: Array(chunkHead.dropLast())),
            Bad(flag: "OversizedChunk", meaning: "a chunk of 69,001 bytes", failure: "limitExceeded",
                bytes: chunkHead + [UInt8](repeating: 0, count: ProtocolLimits.maxLinkChunkPlaintextBytes + 1 - 22)),
            Bad(flag: "ZeroTransferIdGrant", meaning: "a grant whose transfer_id is all zero", failure: "malformed",
                bytes: replacing(grant, at: 2 + 16 + 104, with: zeroID)),
            Bad(flag: "ZeroTransferIdManifest", meaning: "a manifest whose transfer_id is all zero", failure: "malformed",
                bytes: replacing(manifest, at: 2, with: zeroID)),
            Bad(flag: "ZeroTransferIdChunk", meaning: "a chunk whose transfer_id is all zero", failure: "malformed", bytes: replacing(chunk, at: 2, with: zeroID)),
            Bad(flag: "ZeroTransferIdAck", meaning: "an ack whose transfer_id is all zero", failure: "malformed", bytes: replacing(ack, at: 2, with: zeroID)),
            Bad(flag: "CancelReasonZero", meaning: "cancel reason 0", failure: "malformed", bytes: replacing(cancel, at: 18, with: [0])),
            Bad(flag: "CancelReasonSeven", meaning: "cancel reason 7", failure: "malformed", bytes: replacing(cancel, at: 18, with: [7])),
            Bad(flag: "ZeroCertificateGrant", meaning: "a grant carrying the zero certificate", failure: "malformed",
                bytes: replacing(grant, at: 18, with: [UInt8](repeating: 0, count: 104))),
            Bad(flag: "ZeroCertificateRecert", meaning: "a recert carrying the zero certificate", failure: "malformed",
                bytes: replacing(recert, at: 2, with: [UInt8](repeating: 0, count: 104))),
            Bad(flag: "SmallOrderUserKeyGrant", meaning: "a grant whose certificate's UMK_pub is the neutral point", failure: "invalidKey",
                bytes: replacing(grant, at: 18, with: X3DHVectors.ed25519Neutral)),
            Bad(flag: "ZeroEpochRecert", meaning: "a recert whose certificate has epoch 0", failure: "malformed",
                bytes: replacing(recert, at: 2 + 32, with: [0, 0, 0, 0])),
            Bad(flag: "MaxEpochGrant", meaning: "a grant whose certificate has epoch 4294967295", failure: "malformed",
                bytes: replacing(grant, at: 18 + 32, with: [0xff, 0xff, 0xff, 0xff])),
            Bad(flag: "UnknownPhase", meaning: "a manifest of phase 3", failure: "malformed", bytes: replacing(manifest, at: 22, with: [3])),
            Bad(flag: "PhaseZero", meaning: "a manifest of phase 0", failure: "malformed", bytes: replacing(manifest, at: 22, with: [0])),
            Bad(flag: "TruncatedFlagTwo", meaning: "a manifest whose truncated byte is 2", failure: "malformed", bytes: replacing(manifest, at: 35, with: [2])),
            Bad(flag: "TrustCountAboveRecords", meaning: "a manifest with trust_count 6 above record_count 5", failure: "malformed",
                bytes: replacing(manifest, at: 23, with: [0, 0, 0, 6])),
        ]
    }

    static func addEnvelopes(to file: inout VectorFileBuilder, _ keys: LinkVectors.Keys) throws {
        let random = RecordingRandom(seedLabel: "e2ee-vectors/link-envelope")
        let small = random.draw(69), medium = random.draw(1_000), largest = random.draw(ProtocolLimits.maxLinkPairwiseMessageBytes)
        for (comment, message) in [("the shortest pairwise message, 69 bytes", small), ("a pairwise message of 1,000 bytes", medium),
                                   ("the longest pairwise message, 70,000 bytes", largest)] {
            let envelope = try LinkEnvelope(senderDevice: keys.primary, recipientDevice: keys.newDevice, pairwiseMessage: message)
            var fields = JSONObjectBuilder()
            fields.set("senderDeviceId", keys.primary.text)
            fields.set("recipientDeviceId", keys.newDevice.text)
            fields.setHex("pairwiseMessage", message)
            fields.setHex("envelope", envelope.encoded())
            file.add(VectorTest(groupType: "LinkEnvelopeTest", comment: comment, fields: fields))
        }
        let head = LinkEnvelope.typeBytes + keys.primary.bytes + keys.newDevice.bytes
        let bad: [(String, String, String, [UInt8])] = [
            ("DmTypeByte", "type byte 0x01 (a DM envelope's) before a link envelope's fields", "unsupportedVersion",
             [0x03, 0x01] + Array(head[2...]) + small),
            ("OtherFormatByte", "format byte 0x02", "unsupportedVersion", [0x02] + Array(head[1...]) + small),
            ("TruncatedHead", "the recipient id cut after 10 bytes", "truncated", Array(head[0..<28])),
            ("ShortPairwiseMessage", "a pairwise message of 68 bytes", "truncated", head + small.dropLast()),
            ("OversizedPairwiseMessage", "a pairwise message of 70,001 bytes", "limitExceeded", head + largest + [0]),
            ("SenderIsRecipient", "the recipient is the sending device", "invalidRecipients",
             LinkEnvelope.typeBytes + keys.primary.bytes + keys.primary.bytes + small),
        ]
        for (flag, meaning, expected, bytes) in bad {
            file.note(flag, "link envelope: \(meaning)")
            let failure = try refusal(expected, "link envelope \(flag)") { _ = try LinkEnvelope.decode(bytes) }
            var fields = JSONObjectBuilder()
            fields.set("senderDeviceId", "")
            fields.set("recipientDeviceId", "")
            fields.setHex("pairwiseMessage", [])
            fields.setHex("envelope", bytes)
            file.add(VectorTest(groupType: "LinkEnvelopeTest", comment: meaning, flags: [flag], fields: fields, failure: failure))
        }
    }
}
