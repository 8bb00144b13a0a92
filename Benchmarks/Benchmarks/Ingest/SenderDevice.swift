import E2EECrypto
@_spi(Benchmarks) import E2EEMessaging
import Foundation

/// A remote device that writes to the receiving device, acting through E2EECrypto directly
/// (exactly the calls a peer's client makes): an X3DH session with the receiver's bundle, DM
/// envelopes over it, and for a group sender a sender key that is rotated after
/// ``ProtocolLimits/senderKeyRotationMessageCount`` messages, each new key distributed to the
/// receiver in an SKD envelope over the pairwise session.
///
/// The sender never hears back from the receiver, so every pairwise message it writes is a
/// prekey message (a device catching up on a conversation it never answered sees exactly that).
final class SenderDevice {
    let userID: String
    let deviceID: String
    let identity: IdentityKeyPair
    /// The signed prekey of the bundle the server lists for this device (made from its
    /// identity, so the receiving account's directory verifies it).
    let signedPrekey: E2EECrypto.SignedPrekey
    private let device: WireUUID
    private let receiver: WireUUID
    private var session: SessionRecord
    private var senderKey: SenderKeySendingState?
    private var retainedKeyIDs: Set<UInt32> = []

    /// A device of `userID` that has started a session with the receiver's `bundle`.
    init(userID: String, bundle: PrekeyBundle) throws {
        self.userID = userID
        deviceID = UUID().uuidString.lowercased()
        device = try WireUUID(text: deviceID)
        receiver = bundle.deviceID
        identity = IdentityKeyPair()
        signedPrekey = try E2EECrypto.SignedPrekey(id: 1, identity: identity, createdAt: Int64(Date().timeIntervalSince1970))
        let started = try X3DH.initiate(localIdentity: identity, bundle: bundle, pinnedIdentity: nil)
        session = SessionRecord(current: started.state)
    }

    /// The bundle `GET /keys/{user_id}/bundles` lists for this device (no one-time prekey: the
    /// receiver never starts a session), decoded from the server's JSON as the client decodes it.
    func serverBundle() throws -> DeviceBundle {
        let json: [String: Any] = [
            "device_id": deviceID, "identity_key": identity.publicIdentity.base64, "signed_pre_key": signedPrekey.published.base64,
            "signed_pre_key_signature": signedPrekey.signatureBase64, "one_time_pre_key": NSNull(), "one_time_pre_key_count": 0,
        ]
        return try JSONDecoder().decode(DeviceBundle.self, from: JSONSerialization.data(withJSONObject: json))
    }

    /// A DM envelope of `text` in `channel` for the receiver (its `content`).
    func directMessage(_ text: String, channel: WireUUID, timestamp: Int64) throws -> String {
        let payload = try Self.payload(text, timestamp: timestamp)
        let envelope = try DMEnvelope.seal(payload: payload, channel: channel, senderDevice: device, recipients: [receiver],
                                           using: SystemRandom()) { _, plaintext in try self.pairwiseEncrypt(plaintext) }
        return Envelope.dm(envelope).content()
    }

    /// The sender key distribution the next group message of `channel` needs first, if any: a
    /// new key before the first message and after every rotation count.
    func distributionIfNeeded(channel: WireUUID) throws -> String? {
        if let senderKey, !senderKey.needsRotation { return nil }
        let state = SenderKeySendingState.generate(channel: channel, retainedKeyIDs: retainedKeyIDs, using: SystemRandom())
        retainedKeyIDs.insert(state.keyID)
        senderKey = state
        let envelope = try SKDEnvelope.seal(state.distribution, senderDevice: device, recipients: [receiver]) { _, plaintext in
            try self.pairwiseEncrypt(plaintext)
        }
        return Envelope.senderKeyDistribution(envelope).content()
    }

    /// A group message of `text` under the current sender key (call
    /// ``distributionIfNeeded(channel:)`` first).
    func groupMessage(_ text: String, timestamp: Int64) throws -> String {
        guard let state = senderKey else { throw SetupFailed("no sender key yet") }
        let (envelope, next) = try state.encrypt(Self.payload(text, timestamp: timestamp), senderDevice: device)
        senderKey = next
        return Envelope.group(envelope).content()
    }

    private func pairwiseEncrypt(_ plaintext: SecretBytes) throws -> [UInt8] {
        let encryption = try session.encrypt(plaintext)
        session = encryption.record
        return encryption.message
    }

    private static func payload(_ text: String, timestamp: Int64) throws -> SecretBytes {
        try MessagePayload(id: WireUUID(text: UUID().uuidString.lowercased()), timestamp: timestamp, text: text).encodedJSON()
    }
}

/// The input could not be built (a bug in the benchmark, never expected).
struct SetupFailed: Error, CustomStringConvertible {
    let description: String

    init(_ description: String) { self.description = description }
}
