@testable import E2EECrypto

/// Ids, keys and one example of every link plaintext kind, built from fixed seeds.
struct LinkTestFixtures {
    let user = Self.uuid(0x10), primary = Self.uuid(0x20), newDevice = Self.uuid(0x30)
    let request = Self.uuid(0x40), transfer = Self.uuid(0x50), channel = Self.uuid(0x60)
    let userKey = Ed25519.PrivateKey(using: DeterministicRandom(seed: [0x71]))
    let primaryIdentity = IdentityKeyPair(using: DeterministicRandom(seed: [0x72]))
    let newIdentity = IdentityKeyPair(using: DeterministicRandom(seed: [0x73]))
    let nonceN = SecretBytes(copying: [UInt8](repeating: 0xa1, count: 32))
    let nonceP = SecretBytes(copying: [UInt8](repeating: 0xb2, count: 32))

    static func uuid(_ fill: UInt8) -> WireUUID {
        // 16 bytes always make a WireUUID.
        (try? WireUUID(bytes: [UInt8](repeating: fill, count: 16))) ?? uuid(fill)
    }

    static let zeroID = uuid(0)

    func certificate(epoch: UInt32 = 3, notAfter: UInt32 = 1_800_000_000) throws -> DeviceCertificate {
        try DeviceCertificate.issue(by: userKey, userID: user, deviceID: newDevice, identity: newIdentity.publicIdentity,
                                    epoch: epoch, notAfter: notAfter)
    }

    func manifest() throws -> TransferManifest {
        try TransferManifest(transferID: transfer, index: 0, phase: .snapshot, trustCount: 2, recordCount: 3, chunkCount: 1, truncated: true,
                             digest: [UInt8](repeating: 0xd0, count: 32))
    }

    /// One plaintext of each kind, in kind order.
    func everyKind() throws -> [LinkPlaintext] {
        let certificate = try certificate()
        return [
            .request(requestID: request, commit: LinkCommitment.commit(to: nonceN)),
            .accept(requestID: request, nonce: nonceP),
            .reveal(requestID: request, nonce: nonceN),
            .grant(try LinkGrant(requestID: request, certificate: certificate, transferID: transfer, transferChannelID: channel)),
            .cancel(id: request, reason: .codeMismatch),
            .recert(certificate: certificate, primarySignature: PrimarySignature.sign(
                by: userKey, userID: user, senderDevice: primary, recipientDevice: newDevice, epoch: 3, notAfter: 1_800_000_000)),
            .manifest(try manifest()),
            .chunk(transferID: transfer, index: 1, records: TransferRecord.deleted(channelID: channel, messageID: request).encoded()),
            .ack(transferID: transfer, nextIndex: 2),
        ]
    }
}
