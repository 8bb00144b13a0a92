import E2EEConformance
@testable import E2EECrypto

/// `link_test.json`: protocol text 1.3's link wire layer (docs/spec/protocol.md §10.22, §10.23,
/// §11.2) — commitment and codes, `primary_sig`, every link plaintext kind, link envelopes,
/// transfer records of every kind and sub-kind, chunks with their digest, and every refusal of
/// the strict readers. Seed `"e2ee-vectors/link"`: ids (16 bytes each), nonces, identities and
/// the user key, drawn in the order of ``Keys``.
enum LinkVectors {
    /// What every case is built from.
    struct Keys {
        let user: WireUUID, primary: WireUUID, newDevice: WireUUID, contact: WireUUID
        let request: WireUUID, transfer: WireUUID, transferChannel: WireUUID, channel: WireUUID, message: WireUUID
        let primaryIdentity: IdentityKeyPair, newIdentity: IdentityKeyPair
        let userKey: Ed25519.PrivateKey, contactKey: Ed25519.PrivateKey
        let nonceN: SecretBytes, nonceP: SecretBytes

        init(random: RecordingRandom) throws {
            user = try random.uuid()
            primary = try random.uuid()
            newDevice = try random.uuid()
            contact = try random.uuid()
            request = try random.uuid()
            transfer = try random.uuid()
            transferChannel = try random.uuid()
            channel = try random.uuid()
            message = try random.uuid()
            primaryIdentity = IdentityKeyPair(using: random)
            newIdentity = IdentityKeyPair(using: random)
            userKey = Ed25519.PrivateKey(using: random)
            contactKey = Ed25519.PrivateKey(using: random)
            nonceN = SecretBytes(copying: random.draw(32))
            nonceP = SecretBytes(copying: random.draw(32))
            _ = random.take()
        }

        static let notAfter: UInt32 = 1_766_000_000

        func certificate(epoch: UInt32 = 2) throws -> DeviceCertificate {
            try DeviceCertificate.issue(by: userKey, userID: user, deviceID: newDevice, identity: newIdentity.publicIdentity, epoch: epoch,
                                        notAfter: Self.notAfter)
        }
    }

    static func build() throws -> VectorFileBuilder {
        var file = VectorFileBuilder(fileName: "link_test.json", algorithm: "E2EE-LINK", header: [
            "Linking a device under a user key (PROTOCOL.md text 1.3, §10.22, §10.23, §11.2): the nonce commitment, the two 6-digit codes,",
            "primary_sig, link plaintexts 0x03 || kind || fields, link envelopes 0x03 0x04 || sender || recipient || pairwise message,",
            "transfer records kind || version || len || body and chunks of whole records with their SHA-256 digest.",
            "Valid tests recompute or decode, compare every field and encode back byte for byte; invalid tests must be refused.",
        ])
        let keys = try Keys(random: RecordingRandom(seedLabel: "e2ee-vectors/link"))
        try LinkCodeVectors.add(to: &file, keys)
        try LinkPlaintextVectors.add(to: &file, keys)
        try TransferRecordVectors.add(to: &file, keys)
        return file
    }

    /// `LinkVectorFields` as a JSON object.
    static func json(_ fields: [(String, LinkFieldValue)]) -> VectorJSON {
        .object(fields.map { key, value in
            switch value {
            case .text(let text): (key, .string(text))
            case .int(let number): (key, .int(number))
            }
        })
    }
}

/// Codes, commitment and `primary_sig` cases.
enum LinkCodeVectors {
    static func add(to file: inout VectorFileBuilder, _ keys: LinkVectors.Keys) throws {
        let nonces: [(String, SecretBytes, SecretBytes)] = [
            ("the codes of the seeded nonces", keys.nonceN, keys.nonceP),
            ("nonces swapped: other codes", keys.nonceP, keys.nonceN),
            ("all-zero nonces", SecretBytes(copying: [UInt8](repeating: 0, count: 32)), SecretBytes(copying: [UInt8](repeating: 0, count: 32))),
        ] + (try leadingZeroNonce(keys).map { [("a nonce_P whose code_P has a leading zero", keys.nonceN, $0)] } ?? [])
        for (comment, nonceN, nonceP) in nonces {
            let codes = try LinkCodes.derive(newDeviceNonce: nonceN, primaryNonce: nonceP, userID: keys.user, primaryDevice: keys.primary,
                                             primaryIdentity: keys.primaryIdentity.publicIdentity, newDevice: keys.newDevice,
                                             newIdentity: keys.newIdentity.publicIdentity)
            var fields = JSONObjectBuilder()
            fields.set("userId", keys.user.text)
            fields.set("primaryDeviceId", keys.primary.text)
            fields.setHex("primaryIdentityBlob", keys.primaryIdentity.publicIdentity.bytes)
            fields.set("newDeviceId", keys.newDevice.text)
            fields.setHex("newIdentityBlob", keys.newIdentity.publicIdentity.bytes)
            fields.setHex("nonceN", bytesOf(nonceN))
            fields.setHex("nonceP", bytesOf(nonceP))
            fields.setHex("commit", LinkCommitment.commit(to: nonceN))
            fields.set("codeN", codes.newDeviceCode)
            fields.set("codeP", codes.primaryCode)
            file.add(VectorTest(groupType: "LinkCodeTest", comment: comment, fields: fields))
        }
        try addPrimarySignatures(to: &file, keys)
    }

    /// The first of nonce_P = 0x00…0n (n = 1, 2, …) whose `code_P` starts with 0.
    static func leadingZeroNonce(_ keys: LinkVectors.Keys) throws -> SecretBytes? {
        for n in 1...255 {
            let nonce = SecretBytes(copying: [UInt8](repeating: 0, count: 31) + [UInt8(n)])
            let codes = try LinkCodes.derive(newDeviceNonce: keys.nonceN, primaryNonce: nonce, userID: keys.user, primaryDevice: keys.primary,
                                             primaryIdentity: keys.primaryIdentity.publicIdentity, newDevice: keys.newDevice,
                                             newIdentity: keys.newIdentity.publicIdentity)
            if codes.primaryCode.hasPrefix("0") { return nonce }
        }
        return nil
    }

    static func addPrimarySignatures(to file: inout VectorFileBuilder, _ keys: LinkVectors.Keys) throws {
        let certificate = try keys.certificate()
        let signature = PrimarySignature.sign(by: keys.userKey, userID: keys.user, senderDevice: keys.primary, recipientDevice: keys.newDevice,
                                              epoch: certificate.epoch, notAfter: certificate.notAfter)
        func fields(user: WireUUID? = nil, sender: WireUUID? = nil, recipient: WireUUID? = nil, epoch: UInt32? = nil,
                    notAfter: UInt32? = nil, signature sig: [UInt8]? = nil) -> JSONObjectBuilder {
            var fields = JSONObjectBuilder()
            fields.setHex("userKeySeed", bytesOf(keys.userKey.seed))
            fields.set("userId", (user ?? keys.user).text)
            fields.set("senderDeviceId", (sender ?? keys.primary).text)
            fields.set("recipientDeviceId", (recipient ?? keys.newDevice).text)
            fields.set("epoch", epoch ?? certificate.epoch)
            fields.set("notAfter", notAfter ?? certificate.notAfter)
            fields.setHex("userKey", keys.userKey.publicKey.rawRepresentation)
            fields.setHex("signature", sig ?? signature)
            return fields
        }
        file.add(VectorTest(groupType: "PrimarySignatureTest", comment: "primary_sig of the primary for the new device", fields: fields()))
        let altered: [(String, String, JSONObjectBuilder)] = [
            ("SwappedDevices", "sender and recipient swapped", fields(sender: keys.newDevice, recipient: keys.primary)),
            ("OtherUser", "another user id", fields(user: keys.contact)),
            ("OtherEpoch", "the epoch raised by one", fields(epoch: certificate.epoch + 1)),
            ("OtherNotAfter", "not_after raised by one", fields(notAfter: certificate.notAfter + 1)),
            ("ModifiedPrimarySignature", "one bit of the signature flipped", fields(signature: signature.flipping(10))),
        ]
        for (flag, meaning, test) in altered {
            file.note(flag, "primary_sig: \(meaning), the signature kept")
            file.add(VectorTest(groupType: "PrimarySignatureTest", comment: meaning, flags: [flag], fields: test, failure: "badSignature"))
        }
    }
}
