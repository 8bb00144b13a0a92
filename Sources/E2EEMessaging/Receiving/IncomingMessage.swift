import E2EECrypto
@_spi(StoreInternals) import E2EEKeyStore

/// One message as the processor sees it, whichever way it came: a posted message (socket or
/// REST), a pending row re-driven, or the new content of an edit.
struct IncomingMessage: Sendable {
    /// How the message relates to what is stored.
    enum Mode: Sendable {
        /// Not stored yet: a new timeline row.
        case new
        /// Its row is pending: a re-drive, or the edited content of a message not readable yet.
        case existingPending
        /// The new content of a readable message (`original`): an edit.
        case edit(original: ReceivedMessage)
    }

    var id: String
    var channelID: ChannelID
    var channelEncryption: ChannelEncryptionType
    /// The sender user (for an edit: the original's).
    var senderUserID: UserID?
    /// The sender device the server names (for an edit: the original's).
    let senderDeviceID: DeviceID?
    let content: String
    var contentType: String
    var protocolVersion: Int
    var createdAt: StoreTime
    var editedAt: StoreTime?
    var mode: Mode
    /// A posted message the outbox recognised as this device's own (socket echo or REST
    /// page): the account's one way in asked it before the batch (``Account``'s `admit`).
    var isOwnEcho: Bool
    /// An earlier message of the same batch has the same envelope bytes (the lane decides
    /// whether this one is its duplicate).
    var hasEarlierCopy = false
    /// SHA-256 of the exact `content` string.
    let contentHash: [UInt8]
    /// ``contentHash`` as words, for the batch's in-memory sets.
    let digest: ContentDigest
    /// The serial lane this message belongs to: the device whose keys would authenticate it —
    /// the sender device inside our envelope (copies of the same bytes share it), else the
    /// device the server names. Read once (it decodes the content).
    let laneKey: String
    /// The key id a group envelope's header names (nil for anything else): with the channel
    /// and ``laneKey``, the sender key the batch reads before decrypting.
    let groupKeyID: UInt32?
    /// Work done ahead for the batch, in parallel (``ContentPreparation``); nil when none was.
    var prepared: PreparedContent?

    init(id: String, channelID: ChannelID, channelEncryption: ChannelEncryptionType, senderUserID: UserID?, senderDeviceID: DeviceID?,
         content: String, contentType: String, protocolVersion: Int, createdAt: StoreTime, editedAt: StoreTime?, mode: Mode,
         isOwnEcho: Bool) {
        self.id = id
        self.channelID = channelID
        self.channelEncryption = channelEncryption
        self.senderUserID = senderUserID
        self.senderDeviceID = senderDeviceID
        self.content = content
        self.contentType = contentType
        self.protocolVersion = protocolVersion
        self.createdAt = createdAt
        self.editedAt = editedAt
        self.mode = mode
        self.isOwnEcho = isOwnEcho
        self.contentHash = SHA256.hash(utf8: content)
        self.digest = ContentDigest(contentHash)
        let header = EnvelopeSniffer.header(of: content)
        self.laneKey = header?.senderDevice ?? senderDeviceID?.rawValue ?? ""
        self.groupKeyID = header?.groupKeyID
    }

    /// A posted message (a missing `protocol_version` counts as 1, a missing `content_type` as
    /// none of ours); `isOwnEcho` when the outbox recognised it as ours.
    init(posted message: ServerMessage, channel: ReceivingChannel, mode: Mode = .new, isOwnEcho: Bool = false) {
        self.init(id: message.id.rawValue, channelID: message.channelID, channelEncryption: channel.encryption, senderUserID: message.senderID,
                  senderDeviceID: message.senderDeviceID, content: message.content, contentType: message.contentType ?? "",
                  protocolVersion: message.protocolVersion ?? 1, createdAt: StoreTime(microseconds: message.createdAt.microseconds),
                  editedAt: message.editedAt.map { StoreTime(microseconds: $0.microseconds) }, mode: mode, isOwnEcho: isOwnEcho)
    }

    /// A pending row to re-drive: the content was checked against its channel when it was
    /// queued, so the envelope's own type names the `content_type` and the channel type.
    init(pending row: PendingReceive) {
        let kind = EnvelopeSniffer.kind(of: row.pending.content) ?? .dm
        self.init(id: row.pending.messageID, channelID: ChannelID(stored: row.pending.channelID), channelEncryption: kind.channelEncryption,
                  senderUserID: row.senderUserID.map { UserID(stored: $0) }, senderDeviceID: row.pending.senderDeviceID.map { DeviceID(stored: $0) }, content: row.pending.content,
                  contentType: kind.contentType, protocolVersion: 2, createdAt: row.createdAt, editedAt: row.editedAt,
                  mode: .existingPending, isOwnEcho: false)
    }

    /// The new content of a stored message (`message.edit`, or a REST row whose content changed).
    init(editing original: ReceivedMessage, content: String, editedAt: StoreTime?, channel: ReceivingChannel, protocolVersion: Int) {
        let mode: Mode = original.message.state == .pendingKey ? .existingPending : .edit(original: original)
        let contentType = EnvelopeSniffer.kind(of: content)?.contentType ?? ""
        self.init(id: original.message.messageID, channelID: ChannelID(stored: original.message.channelID), channelEncryption: channel.encryption,
                  senderUserID: original.message.senderUserID.map { UserID(stored: $0) }, senderDeviceID: original.message.senderDeviceID.map { DeviceID(stored: $0) }, content: content,
                  contentType: contentType, protocolVersion: protocolVersion, createdAt: original.message.createdAt, editedAt: editedAt,
                  mode: mode, isOwnEcho: false)
    }

    /// The timeline row this message starts from (state and plaintext are set by the outcome).
    func row(state: TimelineState, plaintext: SecretBytes? = nil) -> TimelineMessage {
        var isOwn = false
        if case .edit(let original) = mode { isOwn = original.message.isOwn }
        return TimelineMessage(messageID: id, channelID: channelID.rawValue, senderUserID: senderUserID?.rawValue, senderDeviceID: senderDeviceID?.rawValue,
                               createdAt: createdAt, contentHash: contentHash, state: state, plaintext: plaintext, isOwn: isOwn)
    }

    /// The write of a hidden duplicate row linked to `first` (§6).
    func duplicateWrite(of first: String) -> ReceiveWrite {
        ReceiveWrite(action: .outcome(row(state: .undecryptable(reason: UndecryptableReason.duplicate.rawValue))),
                     facts: ReceivedFacts(kind: .duplicate, duplicateOf: first))
    }

    /// The content decoded as our envelope, checked against the message's metadata
    /// (``ReceivedContent/init(content:contentType:protocolVersion:channelEncryption:)``).
    /// - Throws: the decoder's errors.
    func receivedContent() throws -> ReceivedContent {
        try ReceivedContent(content: content, contentType: contentType, protocolVersion: protocolVersion, channelEncryption: channelEncryption)
    }

    /// `true` for `protocol_version` 2 content typed as one of our envelopes (what the
    /// per-channel dedupe by envelope hash applies to).
    var isEnvelope: Bool { protocolVersion == 2 && EnvelopeKind(rawValue: contentType) != nil }

    /// `true` for an edit of a readable message.
    var isEdit: Bool {
        if case .edit = mode { return true }
        return false
    }

    /// `true` when the message has no row yet.
    var isNew: Bool {
        if case .new = mode { return true }
        return false
    }
}

/// Reads an envelope's type from a `content` string without opening it.
enum EnvelopeSniffer {
    /// The sending device (lower-case text) of canonical base64 `content` that starts with our
    /// format byte — every envelope type carries it right after the two type bytes — and, for
    /// a group envelope, the key id that follows it.
    /// Only the first 32 characters are decoded (24 bytes: the 22 read here); whether the rest
    /// is valid is for the envelope decoder to say.
    static func header(of content: String) -> (senderDevice: String, groupKeyID: UInt32?)? {
        guard let bytes = leadingBytes(of: content), bytes.count >= 18,
              bytes[0] == 0x03, let device = try? WireUUID(bytes: Array(bytes[2..<18])) else { return nil }
        guard bytes[1] == GroupEnvelope.typeBytes[1], bytes.count >= 22 else { return (device.text, nil) }
        return (device.text, bytes[18..<22].reduce(UInt32(0)) { $0 << 8 | UInt32($1) })
    }

    /// The bytes the first 32 characters of `content` encode (all of it when shorter), strictly:
    /// read in place when they are 32 characters of the alphabet — every envelope's are —, else
    /// through the strict decoder, which also takes a short, padded content.
    private static func leadingBytes(of content: String) -> [UInt8]? {
        var text = content
        if text.utf8.count >= 32, let bytes = text.withUTF8({ Base64.decodeGroups(UnsafeBufferPointer(rebasing: $0[..<32])) }) {
            return bytes
        }
        let prefix = content.utf8.count > 32 ? String(content.utf8.prefix(32)) ?? "" : content
        return try? Base64.decode(prefix, maxEncodedLength: ProtocolLimits.maxContentBase64Length)
    }

    /// The envelope kind of canonical base64 `content` that starts with our format byte, else nil.
    static func kind(of content: String) -> EnvelopeKind? {
        guard let bytes = try? Base64.decode(content, maxEncodedLength: ProtocolLimits.maxContentBase64Length), bytes.count >= 2,
              bytes[0] == 0x03 else { return nil }
        switch bytes[1] {
        case DMEnvelope.typeBytes[1]: return .dm
        case GroupEnvelope.typeBytes[1]: return .group
        case SKDEnvelope.typeBytes[1]: return .senderKeyDistribution
        default: return nil
        }
    }
}
