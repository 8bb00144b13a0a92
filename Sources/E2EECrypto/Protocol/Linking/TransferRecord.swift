/// One record of a link transfer (docs/spec/protocol.md §11.2): `kind (1) || version (1, = 1) ||
/// len (u32) || body`, `len` at most ``ProtocolLimits/maxTransferRecordBodyBytes``. Kinds: `0x01`
/// trust (``TrustRecord``), `0x02` message (``MessageRecord``), `0x03` deleted
/// (`channel_id || message_id`). Chunks carry whole records (``TransferRecordDecoder``).
public enum TransferRecord: Sendable, Equatable {
    /// The kind byte.
    public enum Kind: UInt8, Sendable, Hashable, CaseIterable {
        /// `0x01`: a trust decision.
        case trust = 0x01
        /// `0x02`: a message of history.
        case message = 0x02
        /// `0x03`: a message deleted since the snapshot.
        case deleted = 0x03
    }

    /// The only record version.
    public static let version: UInt8 = 1
    /// Bytes before the body: kind, version, `len`.
    public static let headLength = 6
    /// Body length of a deleted record.
    static let deletedBodyLength = 32

    /// A trust decision.
    case trust(TrustRecord)
    /// A message of history.
    case message(MessageRecord)
    /// A message the primary deleted since the snapshot (phase 2).
    case deleted(channelID: WireUUID, messageID: WireUUID)

    /// The kind.
    public var kind: Kind {
        switch self {
        case .trust: .trust
        case .message: .message
        case .deleted: .deleted
        }
    }

    /// The body length (at most ``ProtocolLimits/maxTransferRecordBodyBytes`` by construction).
    var bodyLength: Int {
        switch self {
        case .trust(let record): record.subKind.bodyLength
        case .message(let record): record.bodyLength
        case .deleted: Self.deletedBodyLength
        }
    }

    /// The whole record, head and body.
    public func encoded() -> SecretBytes {
        let body = bodyLength
        return SecretWireWriter.build(count: Self.headLength + body) { writer in
            writer.write(kind.rawValue)
            writer.write(Self.version)
            writer.write(UInt32(body))
            switch self {
            case .trust(let record): record.write(into: &writer)
            case .message(let record): record.write(into: &writer)
            case .deleted(let channel, let message):
                writer.write(channel.bytes)
                writer.write(message.bytes)
            }
        }
    }

    /// Strictly decodes exactly one whole record.
    /// - Throws: the errors of ``TransferRecordDecoder/next()``, or
    ///   ``ProtocolError/trailingBytes(_:count:)`` at ``WireLocation/transferRecord`` when
    ///   anything follows the record.
    public static func decode(_ bytes: SecretBytes) throws -> TransferRecord {
        var decoder = TransferRecordDecoder(records: bytes)
        guard let record = try decoder.next() else { throw ProtocolError.truncated(.transferRecord, expected: headLength, actual: 0) }
        guard decoder.isAtEnd else { throw ProtocolError.trailingBytes(.transferRecord, count: bytes.count - decoder.offset) }
        return record
    }

    /// Reads the head, checks kind, version and `len` (before the body), then the body.
    static func read(from reader: inout SecretWireReader) throws -> (record: TransferRecord, length: Int) {
        let start = reader.offset
        let kindByte = try reader.readUInt8()
        guard let kind = Kind(rawValue: kindByte) else { throw ProtocolError.unsupportedVersion(.transferRecord, value: kindByte) }
        let version = try reader.readUInt8()
        guard version == Self.version else { throw ProtocolError.unsupportedVersion(.transferRecord, value: version) }
        let length = Int(try reader.readUInt32())
        guard length <= ProtocolLimits.maxTransferRecordBodyBytes else {
            throw ProtocolError.limitExceeded(.transferRecord, limit: ProtocolLimits.maxTransferRecordBodyBytes, actual: length)
        }
        var body = SecretWireReader(try reader.readSecret(length), location: .transferRecord)
        let record: TransferRecord
        switch kind {
        case .trust: record = .trust(try TrustRecord.read(from: &body, bodyLength: length))
        case .message:
            guard length >= MessageRecord.headLength else { throw ProtocolError.truncated(.transferRecord, expected: MessageRecord.headLength, actual: length) }
            record = .message(try MessageRecord.read(from: &body))
        case .deleted:
            guard length == deletedBodyLength else {
                if length < deletedBodyLength { throw ProtocolError.truncated(.transferRecord, expected: deletedBodyLength, actual: length) }
                throw ProtocolError.trailingBytes(.transferRecord, count: length - deletedBodyLength)
            }
            record = .deleted(channelID: try body.readUUID(), messageID: try body.readUUID())
        }
        try body.requireEnd()
        return (record, reader.offset - start)
    }
}
