/// A posted message's `content`, decoded and checked against the message's metadata
/// (docs/spec/protocol.md §5, §8): the first step of receiving, before any key is looked up.
public struct ReceivedContent: Sendable, Hashable {
    /// The decoded envelope.
    public let envelope: Envelope
    /// The envelope bytes.
    public let bytes: [UInt8]
    /// SHA-256 of ``bytes`` (per-channel dedupe, §6), computed when asked (a receiver that
    /// keys its dedupe on the content string does not pay for it on every message).
    public var hash: [UInt8] { Envelope.hash(of: bytes) }

    /// Decodes `content` after checking the message's metadata, in this order: the
    /// `protocol_version`, the `content_type` against the channel's `encryption_type`, the
    /// base64 length limit (before decoding), strict base64, the envelope, and the envelope type
    /// against the `content_type`.
    ///
    /// - Throws: ``ProtocolError/unencrypted`` for `protocol_version` 1,
    ///   ``ProtocolError/unsupportedVersion(_:value:)`` for another version,
    ///   ``ProtocolError/wrongEnvelopeType`` for an unknown or mismatched `content_type` or
    ///   envelope type, ``ProtocolError/limitExceeded(_:limit:actual:)`` for a `content` above
    ///   ``ProtocolLimits/maxContentBase64Length``, ``ProtocolError/malformed(_:reason:)`` for bad
    ///   base64 (all at ``WireLocation/content``), and the envelope decoders' errors.
    public init(content: String, contentType: String, protocolVersion: Int, channelEncryption: ChannelEncryptionType) throws {
        guard protocolVersion != 1 else { throw ProtocolError.unencrypted }
        guard protocolVersion == 2 else {
            throw ProtocolError.unsupportedVersion(.content, value: UInt8(clamping: protocolVersion))
        }
        guard let kind = EnvelopeKind(rawValue: contentType), kind.channelEncryption == channelEncryption else {
            throw ProtocolError.wrongEnvelopeType
        }
        let bytes: [UInt8]
        do {
            bytes = try Base64.decode(content, maxEncodedLength: ProtocolLimits.maxContentBase64Length)
        } catch .tooLong(let length, let limit) {
            throw ProtocolError.limitExceeded(.content, limit: limit, actual: length)
        } catch {
            throw ProtocolError.malformed(.content, reason: "not canonical base64 (\(error))")
        }
        let envelope = try Envelope.decode(bytes)
        guard envelope.kind == kind else { throw ProtocolError.wrongEnvelopeType }
        self.envelope = envelope
        self.bytes = bytes
    }
}

/// Who sent it (docs/spec/protocol.md §5, T16): the envelope's sending device must be the message's
/// `sender_device_id`, and one of the `sender_id` user's devices.
public enum SenderDeviceRule {
    /// Checks the sender-device rule.
    /// - Parameters:
    ///   - envelopeDevice: the envelope's `sender_device_id`.
    ///   - messageDevice: the message's `sender_device_id` field (nil when the server omitted it).
    ///   - senderUserDevices: the devices known for the message's `sender_id` (pinned, or listed
    ///     for a prekey message from a device not pinned yet). For an edit, the original
    ///     sender's devices.
    /// - Throws: ``ProtocolError/senderMismatch``.
    public static func check(envelopeDevice: WireUUID, messageDevice: WireUUID?, senderUserDevices: Set<WireUUID>) throws {
        guard let messageDevice, messageDevice == envelopeDevice, senderUserDevices.contains(envelopeDevice) else {
            throw ProtocolError.senderMismatch
        }
    }
}
