/// A contact's user key in a link transfer (trust record sub-kind `0x06`, docs/spec/protocol.md
/// §11.2): `user_id || UMK_pub || state (1) || user_conflicted (1) || seen_until (u32) ||
/// seen_at (u32) || E_max (u32) || device_id || identity_blob || cert`. The certificate, of
/// `deviceID` with `identity`, proves ``highestEpoch`` (for a *listed* key it only shows the
/// key) and need not be current; it is checked for form here, its signature by the importer.
public struct ContactKeyRecord: Sendable, Hashable {
    /// What the user decided about the key.
    public enum State: UInt8, Sendable, Hashable, CaseIterable {
        /// 1: pinned.
        case pinned = 1
        /// 2: replaced by a newer key.
        case replaced = 2
        /// 3: declined.
        case declined = 3
        /// 4: verified by comparing safety numbers.
        case verified = 4
        /// 5: listed, not decided.
        case listed = 5
    }

    /// Length after the sub-kind byte.
    static let fieldsLength = 16 + 32 + 1 + 1 + 12 + 16 + IdentityBlob.length + DeviceCertificate.length

    /// The contact.
    public let userID: WireUUID
    /// `UMK_pub`, checked as every received Ed25519 key is (§0.8).
    public let userKey: Ed25519.PublicKey
    /// The decision.
    public let state: State
    /// Whether the contact is conflicted (two keys listed).
    public let userConflicted: Bool
    /// `seen_until`, unix seconds.
    public let seenUntil: UInt32
    /// `seen_at`, unix seconds.
    public let seenAt: UInt32
    /// `E_max`, the highest epoch seen under the key.
    public let highestEpoch: UInt32
    /// The device whose certificate is carried.
    public let deviceID: WireUUID
    /// That device's identity blob.
    public let identity: IdentityBlob
    /// That device's certificate.
    public let certificate: DeviceCertificate

    /// A record of these values (the user key is checked where the record is read).
    public init(userID: WireUUID, userKey: Ed25519.PublicKey, state: State, userConflicted: Bool, seenUntil: UInt32, seenAt: UInt32,
                highestEpoch: UInt32, deviceID: WireUUID, identity: IdentityBlob, certificate: DeviceCertificate) {
        self.userID = userID
        self.userKey = userKey
        self.state = state
        self.userConflicted = userConflicted
        self.seenUntil = seenUntil
        self.seenAt = seenAt
        self.highestEpoch = highestEpoch
        self.deviceID = deviceID
        self.identity = identity
        self.certificate = certificate
    }

    /// Reads the fields after the sub-kind byte.
    static func read(from reader: inout SecretWireReader) throws -> ContactKeyRecord {
        let userID = try reader.readUUID()
        let userKey = try Ed25519.PublicKey.received(reader.readPublic(Ed25519.publicKeyLength), at: .transferRecord)
        let state: State = try TrustRecord.value(reader.readUInt8(), "contact key state")
        let conflictedByte = try reader.readUInt8()
        guard conflictedByte <= 1 else { throw ProtocolError.malformed(.transferRecord, reason: "user_conflicted \(conflictedByte)") }
        let seenUntil = try reader.readUInt32(), seenAt = try reader.readUInt32(), highestEpoch = try reader.readUInt32()
        let deviceID = try reader.readUUID()
        let identity = try TrustRecord.readIdentity(&reader)
        let certificate = try DeviceCertificate(bytes: reader.readPublic(DeviceCertificate.length))
        return ContactKeyRecord(userID: userID, userKey: userKey, state: state, userConflicted: conflictedByte == 1, seenUntil: seenUntil,
                                seenAt: seenAt, highestEpoch: highestEpoch, deviceID: deviceID, identity: identity, certificate: certificate)
    }

    /// Writes the fields after the sub-kind byte.
    func write(into writer: inout SecretWireWriter) {
        writer.write(userID.bytes)
        writer.write(userKey.rawRepresentation)
        writer.write(state.rawValue)
        writer.write(userConflicted)
        writer.write(seenUntil)
        writer.write(seenAt)
        writer.write(highestEpoch)
        writer.write(deviceID.bytes)
        writer.write(identity.bytes)
        writer.write(certificate.bytes)
    }
}
