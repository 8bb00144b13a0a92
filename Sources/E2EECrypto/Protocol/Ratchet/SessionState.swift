/// One Double Ratchet session with one remote device (docs/spec/protocol.md §3), with the X3DH facts it
/// was made from. A value: every operation works on a copy and returns the new state, so a
/// failure leaves the caller's state exactly as it was. Secret.
public struct SessionState: Sendable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// Which side of X3DH this device was.
    public enum Role: UInt8, Sendable {
        /// Alice: fetched the bundle and sent the first (prekey) message.
        case initiator = 1
        /// Bob: accepted a prekey message.
        case responder = 2
    }

    /// This device's side of X3DH.
    public let role: Role
    /// This device's identity blob.
    public let localIdentity: IdentityBlob
    /// The remote device's identity blob.
    public let remoteIdentity: IdentityBlob
    /// `EK_A`, the initiator's ephemeral public key: the session's base key.
    public let baseKey: X25519.PublicKey
    /// The responder's signed prekey id used by X3DH.
    public let signedPrekeyID: UInt32
    /// The responder's one-time prekey id used by X3DH, 0 for none.
    public let oneTimePrekeyID: UInt32
    /// `true` while an initiator has decrypted nothing in this session: it keeps sending prekey messages.
    public internal(set) var awaitingReply: Bool

    var rootKey: SecretBytes
    var sendingRatchet: X25519.PrivateKey
    var remoteRatchet: X25519.PublicKey?
    var sendingChain: SecretBytes?
    var sendCount: UInt32
    var previousSendCount: UInt32
    var receivingChain: SecretBytes?
    var receiveCount: UInt32
    var skipped: SkippedMessageKeys

    init(role: Role, localIdentity: IdentityBlob, remoteIdentity: IdentityBlob, baseKey: X25519.PublicKey,
         signedPrekeyID: UInt32, oneTimePrekeyID: UInt32, awaitingReply: Bool, rootKey: SecretBytes,
         sendingRatchet: X25519.PrivateKey, remoteRatchet: X25519.PublicKey?, sendingChain: SecretBytes?,
         sendCount: UInt32 = 0, previousSendCount: UInt32 = 0, receivingChain: SecretBytes? = nil,
         receiveCount: UInt32 = 0, skipped: SkippedMessageKeys = SkippedMessageKeys()) {
        self.role = role
        self.localIdentity = localIdentity
        self.remoteIdentity = remoteIdentity
        self.baseKey = baseKey
        self.signedPrekeyID = signedPrekeyID
        self.oneTimePrekeyID = oneTimePrekeyID
        self.awaitingReply = awaitingReply
        self.rootKey = rootKey
        self.sendingRatchet = sendingRatchet
        self.remoteRatchet = remoteRatchet
        self.sendingChain = sendingChain
        self.sendCount = sendCount
        self.previousSendCount = previousSendCount
        self.receivingChain = receivingChain
        self.receiveCount = receiveCount
        self.skipped = skipped
    }

    /// `AD = identity_blob(initiator) || identity_blob(responder)`, the same in both directions.
    public var associatedData: [UInt8] {
        switch role {
        case .initiator: localIdentity.bytes + remoteIdentity.bytes
        case .responder: remoteIdentity.bytes + localIdentity.bytes
        }
    }

    /// `true` when this state can send (a responder only after it has received).
    public var canSend: Bool { sendingChain != nil }

    /// Number of skipped message keys stored in this state.
    public var storedSkippedKeyCount: Int { skipped.count }

    /// Shows public facts only.
    public var description: String {
        "SessionState(role: \(role), remote: \(remoteIdentity.base64), spk: \(signedPrekeyID), opk: \(oneTimePrekeyID), secrets: <redacted>)"
    }
    /// Same as ``description``.
    public var debugDescription: String { description }
    /// No children: reflection must not reach the keys.
    public var customMirror: Mirror { Mirror(self, children: [:]) }
}
