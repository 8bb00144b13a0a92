import E2EECrypto

/// `E2EE-LINK` (docs/spec/protocol.md §10.22, §10.23, §11.2): codes and commitment recomputed
/// from the nonces and identities; `primary_sig` recomputed from the user key's seed and
/// verified (an invalid case: altered fields under the kept signature must not verify); link
/// plaintexts, envelopes, transfer records and chunks decoded strictly, compared field by field
/// and encoded back byte for byte; an invalid one refused with the `failure` it names.
struct LinkRunner: AlgorithmRunner {
    let algorithms: Set<String> = ["E2EE-LINK"]

    func attempt(_ vector: VectorCase) throws -> Attempt {
        switch vector.group["type"]?.string {
        case "LinkCodeTest": try codes(vector)
        case "PrimarySignatureTest": try primarySignature(vector)
        case "LinkPlaintextTest": try plaintext(vector)
        case "LinkEnvelopeTest": try envelope(vector)
        case "TransferRecordTest": try record(vector)
        case "TransferChunkTest": try chunk(vector)
        default: .misrefused("unknown group type")
        }
    }

    private func codes(_ vector: VectorCase) throws -> Attempt {
        let nonceN = SecretBytes(copying: try vector.hex("nonceN")), nonceP = SecretBytes(copying: try vector.hex("nonceP"))
        let ids = (user: try vector.text("userId"), primary: try vector.text("primaryDeviceId"), new: try vector.text("newDeviceId"))
        let blobs = (primary: try vector.hex("primaryIdentityBlob"), new: try vector.hex("newIdentityBlob"))
        let expected = (commit: try vector.hex("commit"), codeN: try vector.text("codeN"), codeP: try vector.text("codeP"))
        let compute = {
            try LinkCodes.derive(newDeviceNonce: nonceN, primaryNonce: nonceP, userID: WireUUID(text: ids.user),
                                 primaryDevice: WireUUID(text: ids.primary), primaryIdentity: IdentityBlob(bytes: blobs.primary),
                                 newDevice: WireUUID(text: ids.new), newIdentity: IdentityBlob(bytes: blobs.new))
        }
        guard vector.result == .valid else { return try refusal(of: vector) { _ = try compute() } }
        return refusing {
            let codes = try compute()
            try check(LinkCommitment.commit(to: nonceN) == expected.commit, "commit")
            try check(LinkCommitment.verifies(expected.commit, nonce: nonceN), "the commitment does not verify its nonce")
            try check(codes.newDeviceCode == expected.codeN, "codeN")
            try check(codes.primaryCode == expected.codeP, "codeP")
            try check(LinkCodes.matches(typed: expected.codeN, expected: codes.newDeviceCode), "codeN does not match itself")
            return .matched
        }
    }

    private func primarySignature(_ vector: VectorCase) throws -> Attempt {
        let userKey = try Ed25519.PublicKey(rawRepresentation: vector.hex("userKey"))
        let signature = try vector.hex("signature")
        let fields = (user: try WireUUID(text: vector.text("userId")), sender: try WireUUID(text: vector.text("senderDeviceId")),
                      recipient: try WireUUID(text: vector.text("recipientDeviceId")),
                      epoch: UInt32(truncatingIfNeeded: try vector.int("epoch")), notAfter: UInt32(truncatingIfNeeded: try vector.int("notAfter")))
        let verifies = PrimarySignature.verifies(signature, userKey: userKey, userID: fields.user, senderDevice: fields.sender,
                                                 recipientDevice: fields.recipient, epoch: fields.epoch, notAfter: fields.notAfter)
        guard vector.result == .valid else {
            guard try vector.text("failure") == "badSignature" else { return .misrefused("a primary signature can only fail as badSignature") }
            return verifies ? .matched : .rejected(ProtocolError.badSignature)
        }
        return refusing {
            let key = try Ed25519.PrivateKey(seed: SecretBytes(copying: vector.hex("userKeySeed")))
            try check(key.publicKey == userKey, "userKey")
            try check(PrimarySignature.sign(by: key, userID: fields.user, senderDevice: fields.sender, recipientDevice: fields.recipient,
                                            epoch: fields.epoch, notAfter: fields.notAfter) == signature, "signature")
            try check(verifies, "the signature does not verify")
            return .matched
        }
    }

    private func plaintext(_ vector: VectorCase) throws -> Attempt {
        let bytes = SecretBytes(copying: try vector.hex("plaintext"))
        guard vector.result == .valid else { return try refusal(of: vector) { _ = try LinkPlaintext.decode(bytes) } }
        return refusing {
            let decoded = try LinkPlaintext.decode(bytes)
            try check(LinkVectorFields.matches(LinkVectorFields.of(decoded), vector.fields["fields"]), "fields")
            try check(try decoded.encoded() == bytes, "the plaintext does not encode back")
            return .matched
        }
    }

    private func envelope(_ vector: VectorCase) throws -> Attempt {
        let bytes = try vector.hex("envelope")
        guard vector.result == .valid else { return try refusal(of: vector) { _ = try LinkEnvelope.decode(bytes) } }
        let sender = try vector.text("senderDeviceId"), recipient = try vector.text("recipientDeviceId"), message = try vector.hex("pairwiseMessage")
        return refusing {
            let built = try LinkEnvelope(senderDevice: WireUUID(text: sender), recipientDevice: WireUUID(text: recipient), pairwiseMessage: message)
            try check(built.encoded() == bytes, "envelope")
            try check(try LinkEnvelope.decode(bytes) == built, "the envelope does not decode back")
            return .matched
        }
    }

    private func record(_ vector: VectorCase) throws -> Attempt {
        let bytes = SecretBytes(copying: try vector.hex("record"))
        guard vector.result == .valid else { return try refusal(of: vector) { _ = try TransferRecord.decode(bytes) } }
        return refusing {
            let decoded = try TransferRecord.decode(bytes)
            try check(LinkVectorFields.matches(LinkVectorFields.of(decoded), vector.fields["fields"]), "fields")
            try check(decoded.encoded() == bytes, "the record does not encode back")
            return .matched
        }
    }

    private func chunk(_ vector: VectorCase) throws -> Attempt {
        let bytes = SecretBytes(copying: try vector.hex("chunk"))
        let decodeAll = {
            var decoder = TransferRecordDecoder(records: bytes)
            var digest = TransferDigest()
            var records: [TransferRecord] = []
            while let record = try decoder.next(updating: &digest) { records.append(record) }
            return (records, digest.digest)
        }
        guard vector.result == .valid else { return try refusal(of: vector) { _ = try decodeAll() } }
        let expected = try vector.list("records").map { item -> [UInt8] in
            guard let text = item.string, let raw = HexText.decode(text) else { throw VectorFieldError(field: "records") }
            return raw
        }
        let digest = try vector.hex("digest")
        return refusing {
            let (records, computed) = try decodeAll()
            try check(records.map { $0.encoded().unprotectedCopy() } == expected, "records")
            try check(computed == digest, "digest")
            return .matched
        }
    }
}
