import CSodium
import E2EECrypto
import E2EEMessaging
import Foundation

/// The floor's input (issue 20): for each of the workload's 80,000 stored rows, the bytes the
/// libsodium work of that row runs on, with the row's own lengths — a group message's real
/// signed bytes and ciphertext length, a DM's pairwise and payload ciphertext lengths, an SKD's
/// pairwise ciphertext length — made in the setup with keys of the floor's own (the protocol's
/// keys live inside the receiving pipeline), so every call the floor makes succeeds exactly as
/// it would in a decryption.
struct FloorRows: Sendable {
    /// What a row needs from libsodium.
    enum Kind: Sendable {
        /// Ed25519 verification, the sender-key chain step (two HMACs), HKDF, AES-GCM open.
        case group
        /// The pairwise chain step and HKDF, AES-GCM open of the payload key, the key-commit
        /// HMAC, AES-GCM open of the payload.
        case direct
        /// The pairwise chain step and HKDF, AES-GCM open of the distribution.
        case distribution
    }

    /// One row's inputs.
    struct Row: Sendable {
        let kind: Kind
        /// Group: what the signature covers (label, channel, header, ciphertext); empty otherwise.
        let signed: [UInt8]
        /// Group: the 64-byte signature of `signed`.
        let signature: [UInt8]
        /// Group: the index of the signer's public key in ``FloorRows/signers``.
        let signer: Int
        /// The chain key the row's message key comes from (32 bytes).
        let chainKey: [UInt8]
        /// The ciphertext (with its tag) the derived key opens: the group payload, or the pairwise
        /// message's body (a DM's payload key, an SKD's plaintext).
        let ciphertext: [UInt8]
        /// The associated data of `ciphertext`.
        let associatedData: [UInt8]
        /// DM: the payload ciphertext (with its tag), opened with the key `ciphertext` carries.
        let payload: [UInt8]
        /// The timeline columns the insert writes.
        let messageID: String
        let channelID: String
        let senderDeviceID: String
        let createdAt: Int64

        /// Bytes of what the store keeps of the row, which the floor seals: the group message's
        /// plaintext, a DM's payload, or an SKD's new receiving sender-key state (64 bytes).
        var keptLength: Int {
            switch kind {
            case .group: ciphertext.count - FloorRows.tagLength
            case .direct: payload.count - FloorRows.tagLength
            case .distribution: 64
            }
        }
    }

    /// HKDF info and output length the floor derives with (a 32-byte key and a 12-byte nonce).
    static let info = Array("e2ee-floor-v1".utf8)
    static let derivedLength = 44
    static let tagLength = 16

    let rows: [Row]
    /// The Ed25519 public keys of the group senders (one per sending device of the workload).
    let signers: [[UInt8]]

    /// Builds the floor's inputs for `traffic`'s rows (tens of thousands of seals and signatures:
    /// about a second or two).
    /// - Throws: ``SetupFailed`` when a row does not decode or a libsodium call fails.
    static func make(_ traffic: Traffic) throws -> FloorRows {
        var signerIndex: [String: Int] = [:]
        var secretKeys: [[UInt8]] = []
        var signers: [[UInt8]] = []
        var rows: [Row] = []
        rows.reserveCapacity(traffic.rows.count)
        for (_, message) in traffic.rows {
            let envelope = try Base64.decode(message.content, maxEncodedLength: .max)
            let channel = try WireUUID(text: message.channelID.rawValue).bytes
            let chainKey = random(32)
            let device = message.senderDeviceID?.rawValue ?? ""
            switch try Envelope.decode(envelope) {
            case .group(let group):
                let index: Int
                if let known = signerIndex[device] {
                    index = known
                } else {
                    var publicKey = [UInt8](repeating: 0, count: 32)
                    var secretKey = [UInt8](repeating: 0, count: 64)
                    guard crypto_sign_keypair(&publicKey, &secretKey) == 0 else { throw SetupFailed("crypto_sign_keypair") }
                    index = signers.count
                    signerIndex[device] = index
                    signers.append(publicKey)
                    secretKeys.append(secretKey)
                }
                let aad = Array("e2ee-group-aad-v1".utf8) + channel + group.header
                let ciphertext = try seal(plaintextLength: group.ciphertext.count - tagLength, chainKey: chainKey, associatedData: aad)
                let signed = Array("e2ee-group-sig-v1".utf8) + channel + group.header + ciphertext
                var signature = [UInt8](repeating: 0, count: 64)
                guard crypto_sign_detached(&signature, nil, signed, UInt64(signed.count), secretKeys[index]) == 0 else {
                    throw SetupFailed("crypto_sign_detached")
                }
                rows.append(Row(kind: .group, signed: signed, signature: signature, signer: index, chainKey: chainKey, ciphertext: ciphertext,
                                associatedData: aad, payload: [], messageID: message.id.rawValue, channelID: message.channelID.rawValue,
                                senderDeviceID: device, createdAt: message.createdAt.microseconds))
            case .dm(let direct):
                let payloadKey = random(32)
                let payload = try AES256GCM.seal(random(direct.payloadCiphertext.count - tagLength), key: payloadKey,
                                                 nonce: [UInt8](repeating: 0, count: 12), authenticating: [UInt8]())
                let body = try sealed(payloadKey, chainKey: chainKey, associatedData: [UInt8](repeating: 1, count: 40))
                rows.append(Row(kind: .direct, signed: [], signature: [], signer: 0, chainKey: chainKey, ciphertext: body,
                                associatedData: [UInt8](repeating: 1, count: 40), payload: payload, messageID: message.id.rawValue,
                                channelID: message.channelID.rawValue, senderDeviceID: device, createdAt: message.createdAt.microseconds))
            case .senderKeyDistribution(let distribution):
                let length = max(0, (distribution.recipients.first?.pairwiseMessage.count ?? 0) - 41 - tagLength)
                let body = try seal(plaintextLength: length, chainKey: chainKey, associatedData: [UInt8](repeating: 1, count: 40))
                rows.append(Row(kind: .distribution, signed: [], signature: [], signer: 0, chainKey: chainKey, ciphertext: body,
                                associatedData: [UInt8](repeating: 1, count: 40), payload: [], messageID: message.id.rawValue,
                                channelID: message.channelID.rawValue, senderDeviceID: device, createdAt: message.createdAt.microseconds))
            }
        }
        for var key in secretKeys { secureWipe(&key) }
        return FloorRows(rows: rows, signers: signers)
    }

    /// A random plaintext of `plaintextLength` bytes sealed under the key and nonce the chain
    /// step and HKDF derive from `chainKey` (what ``IngestFloor`` opens).
    private static func seal(plaintextLength: Int, chainKey: [UInt8], associatedData: [UInt8]) throws -> [UInt8] {
        try sealed(random(plaintextLength), chainKey: chainKey, associatedData: associatedData)
    }

    private static func sealed(_ plaintext: [UInt8], chainKey: [UInt8], associatedData: [UInt8]) throws -> [UInt8] {
        let messageKey = HMACSHA256.authenticationCode(for: [UInt8(0x01)], key: chainKey)
        let derived = try HKDF.deriveKey(inputKeyMaterial: messageKey, salt: [UInt8](repeating: 0, count: 32), info: info,
                                         outputLength: derivedLength)
        return try derived.withByteView { bytes in
            let all = Array(bytes)
            return try AES256GCM.seal(plaintext, key: Array(all[0..<32]), nonce: Array(all[32..<44]), authenticating: associatedData)
        }
    }

    private static func random(_ count: Int) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        randombytes_buf(&bytes, count)
        return bytes
    }
}
