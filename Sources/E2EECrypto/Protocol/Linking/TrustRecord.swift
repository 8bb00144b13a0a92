/// One trust decision in a link transfer (record kind `0x01`, docs/spec/protocol.md §11.2): the
/// body starts with a sub-kind byte, then that sub-kind's fields, of an exact length. Sub-kind
/// `0x07` is reserved (group state, not in this text) and refused like any unknown one.
public enum TrustRecord: Sendable, Hashable {
    /// The sub-kind byte.
    public enum SubKind: UInt8, Sendable, Hashable, CaseIterable {
        /// `0x01`: an own device with its certificate.
        case ownDevice = 0x01
        /// `0x02`: a channel and its standing.
        case channel = 0x02
        /// `0x03`: the other participant of a DM channel.
        case dmParticipant = 0x03
        /// `0x04`: an approved member of a group channel.
        case approvedMember = 0x04
        /// `0x05`: a hold or decline of a user or one device.
        case hold = 0x05
        /// `0x06`: a contact's user key and what is known of it.
        case contactKey = 0x06
        /// `0x08`: a device trusted without a certificate.
        case deviceWithoutCertificate = 0x08

        /// The body length, sub-kind byte included.
        public var bodyLength: Int {
            switch self {
            case .ownDevice: 1 + 16 + IdentityBlob.length + DeviceCertificate.length
            case .channel: 1 + 16 + 1 + 1
            case .dmParticipant, .approvedMember: 1 + 32
            case .hold: 1 + 48 + 1
            case .contactKey: 1 + ContactKeyRecord.fieldsLength
            case .deviceWithoutCertificate: 1 + 32 + IdentityBlob.length + 4
            }
        }
    }

    /// An own device: its id, identity blob and certificate (checked for form only).
    case ownDevice(deviceID: WireUUID, identity: IdentityBlob, certificate: DeviceCertificate)
    /// A channel, what kind it is and where the user stands in it.
    case channel(channelID: WireUUID, kind: ChannelKind, standing: ChannelStanding)
    /// The other participant of a DM channel.
    case dmParticipant(channelID: WireUUID, userID: WireUUID)
    /// A member approved in a group channel.
    case approvedMember(channelID: WireUUID, userID: WireUUID)
    /// A hold or decline: in one channel or all (`channelID` `nil`, zero on the wire), of a
    /// member or one of their devices (`deviceID` `nil`, zero on the wire: the member).
    case hold(channelID: WireUUID?, userID: WireUUID, deviceID: WireUUID?, state: HoldState)
    /// A contact's user key.
    case contactKey(ContactKeyRecord)
    /// A device trusted without a certificate (a contact without a key, or a legacy own device),
    /// trusted until `until` (unix seconds; `nil`, 0 on the wire: no end).
    case deviceWithoutCertificate(userID: WireUUID, deviceID: WireUUID, identity: IdentityBlob, until: UInt32?)

    /// The sub-kind.
    public var subKind: SubKind {
        switch self {
        case .ownDevice: .ownDevice
        case .channel: .channel
        case .dmParticipant: .dmParticipant
        case .approvedMember: .approvedMember
        case .hold: .hold
        case .contactKey: .contactKey
        case .deviceWithoutCertificate: .deviceWithoutCertificate
        }
    }

    /// Reads a whole trust body (the reader holds exactly the body).
    /// - Throws: at ``WireLocation/transferRecord``: ``ProtocolError/unsupportedVersion(_:value:)``
    ///   for an unknown or reserved sub-kind, ``ProtocolError/truncated(_:expected:actual:)`` or
    ///   ``ProtocolError/trailingBytes(_:count:)`` for a body not of the sub-kind's length,
    ///   ``ProtocolError/malformed(_:reason:)`` for an unknown enumerated value or flag; the
    ///   identity blob's, user key's and certificate's own refusals.
    static func read(from reader: inout SecretWireReader, bodyLength: Int) throws -> TrustRecord {
        let byte = try reader.readUInt8()
        guard let subKind = SubKind(rawValue: byte) else { throw ProtocolError.unsupportedVersion(.transferRecord, value: byte) }
        guard bodyLength == subKind.bodyLength else {
            if bodyLength < subKind.bodyLength { throw ProtocolError.truncated(.transferRecord, expected: subKind.bodyLength, actual: bodyLength) }
            throw ProtocolError.trailingBytes(.transferRecord, count: bodyLength - subKind.bodyLength)
        }
        switch subKind {
        case .ownDevice:
            return .ownDevice(deviceID: try reader.readUUID(), identity: try readIdentity(&reader),
                              certificate: try DeviceCertificate(bytes: reader.readPublic(DeviceCertificate.length)))
        case .channel:
            return .channel(channelID: try reader.readUUID(), kind: try ChannelKind(wire: reader.readUInt8()),
                            standing: try ChannelStanding(wire: reader.readUInt8()))
        case .dmParticipant:
            return .dmParticipant(channelID: try reader.readUUID(), userID: try reader.readUUID())
        case .approvedMember:
            return .approvedMember(channelID: try reader.readUUID(), userID: try reader.readUUID())
        case .hold:
            let channel = try reader.readUUID(), user = try reader.readUUID(), device = try reader.readUUID()
            return .hold(channelID: channel.nonZero, userID: user, deviceID: device.nonZero, state: try HoldState(wire: reader.readUInt8()))
        case .contactKey:
            return .contactKey(try ContactKeyRecord.read(from: &reader))
        case .deviceWithoutCertificate:
            let user = try reader.readUUID(), device = try reader.readUUID()
            let identity = try readIdentity(&reader)
            let until = try reader.readUInt32()
            return .deviceWithoutCertificate(userID: user, deviceID: device, identity: identity, until: until == 0 ? nil : until)
        }
    }

    /// Writes the body, sub-kind byte first.
    func write(into writer: inout SecretWireWriter) {
        writer.write(subKind.rawValue)
        switch self {
        case .ownDevice(let device, let identity, let certificate):
            writer.write(device.bytes)
            writer.write(identity.bytes)
            writer.write(certificate.bytes)
        case .channel(let channel, let kind, let standing):
            writer.write(channel.bytes)
            writer.write(kind.rawValue)
            writer.write(standing.rawValue)
        case .dmParticipant(let channel, let user), .approvedMember(let channel, let user):
            writer.write(channel.bytes)
            writer.write(user.bytes)
        case .hold(let channel, let user, let device, let state):
            writer.write(channel?.bytes ?? WireUUID.zeroBytes)
            writer.write(user.bytes)
            writer.write(device?.bytes ?? WireUUID.zeroBytes)
            writer.write(state.rawValue)
        case .contactKey(let record):
            record.write(into: &writer)
        case .deviceWithoutCertificate(let user, let device, let identity, let until):
            writer.write(user.bytes)
            writer.write(device.bytes)
            writer.write(identity.bytes)
            writer.write(until ?? 0)
        }
    }

    /// A 65-byte identity blob, parsed strictly.
    static func readIdentity(_ reader: inout SecretWireReader) throws -> IdentityBlob {
        try IdentityBlob(bytes: reader.readPublic(IdentityBlob.length))
    }
}

extension WireUUID {
    /// 16 zero bytes: "none" in the fields of a transfer record that allow it.
    static let zeroBytes = [UInt8](repeating: 0, count: 16)

    /// `nil` for the zero id, else `self`.
    var nonZero: WireUUID? { bytes.contains { $0 != 0 } ? self : nil }
}
