/// One message of history in a link transfer (record kind `0x02`, docs/spec/protocol.md §11.2):
/// `channel_id || message_id || sender_id || sender_device_id || created_at (u64, µs) || flags (1)
/// || payload`, the payload the §6 bytes as the primary holds them (at most
/// ``ProtocolLimits/maxPayloadBytes``). Only bit 0 of `flags` (edited) is defined; a record with
/// any other bit set is refused.
public struct MessageRecord: Sendable, Equatable, CustomStringConvertible {
    /// Bytes before the payload.
    static let headLength = 64 + 8 + 1
    /// The `flags` bit meaning "edited".
    static let editedFlag: UInt8 = 0x01

    /// The channel.
    public let channelID: WireUUID
    /// The message id.
    public let messageID: WireUUID
    /// The sending user.
    public let senderID: WireUUID
    /// The sending device.
    public let senderDeviceID: WireUUID
    /// When it was created, microseconds since the unix epoch.
    public let createdAt: UInt64
    /// Whether the text shown is an edit.
    public let edited: Bool
    /// The payload bytes (message text; kept wiped).
    public let payload: SecretBytes

    /// A record of these values.
    /// - Throws: ``ProtocolError/limitExceeded(_:limit:actual:)`` at ``WireLocation/transferRecord``
    ///   for a payload above ``ProtocolLimits/maxPayloadBytes``.
    public init(channelID: WireUUID, messageID: WireUUID, senderID: WireUUID, senderDeviceID: WireUUID, createdAt: UInt64, edited: Bool,
                payload: SecretBytes) throws {
        guard payload.count <= ProtocolLimits.maxPayloadBytes else {
            throw ProtocolError.limitExceeded(.transferRecord, limit: ProtocolLimits.maxPayloadBytes, actual: payload.count)
        }
        self.channelID = channelID
        self.messageID = messageID
        self.senderID = senderID
        self.senderDeviceID = senderDeviceID
        self.createdAt = createdAt
        self.edited = edited
        self.payload = payload
    }

    /// The body length.
    var bodyLength: Int { Self.headLength + payload.count }

    /// Reads a whole body (the reader holds exactly the body).
    static func read(from reader: inout SecretWireReader) throws -> MessageRecord {
        let channel = try reader.readUUID(), message = try reader.readUUID(), sender = try reader.readUUID(), device = try reader.readUUID()
        let createdAt = UInt64(bitPattern: try reader.readInt64())
        let flags = try reader.readUInt8()
        guard flags & ~editedFlag == 0 else { throw ProtocolError.malformed(.transferRecord, reason: "message flags 0x\(String(flags, radix: 16))") }
        return try MessageRecord(channelID: channel, messageID: message, senderID: sender, senderDeviceID: device, createdAt: createdAt,
                                 edited: flags & editedFlag != 0, payload: reader.readSecret(reader.remainingCount))
    }

    /// Writes the body.
    func write(into writer: inout SecretWireWriter) {
        writer.write(channelID.bytes)
        writer.write(messageID.bytes)
        writer.write(senderID.bytes)
        writer.write(senderDeviceID.bytes)
        writer.write(Int64(bitPattern: createdAt))
        writer.write(edited ? Self.editedFlag : 0)
        writer.write(payload)
    }

    /// Never shows the payload.
    public var description: String { "MessageRecord(\(channelID), \(messageID), <redacted \(payload.count) bytes>)" }
}
