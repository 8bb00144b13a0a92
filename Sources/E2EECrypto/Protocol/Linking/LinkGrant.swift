/// The primary's grant to a new device (kind `0x04`, docs/spec/protocol.md §10.22): the new
/// device's certificate, and the transfer that will bring it the primary's trust decisions.
public struct LinkGrant: Sendable, Hashable {
    /// Length of the fields after the plaintext's type and kind bytes.
    static let fieldsLength = 16 + DeviceCertificate.length + 16 + 16

    /// The request this grant answers.
    public let requestID: WireUUID
    /// The certificate issued to the new device (never ``DeviceCertificate/zero``; its
    /// signature is checked by the receiver against its own user, device and blob).
    public let certificate: DeviceCertificate
    /// The transfer's id (never zero).
    public let transferID: WireUUID
    /// The transfer channel the primary created for it.
    public let transferChannelID: WireUUID

    /// A grant, its fields checked as a reader checks them.
    /// - Throws: ``ProtocolError/malformed(_:reason:)`` at ``WireLocation/linkPlaintext`` for a
    ///   zero transfer id or the zero certificate.
    public init(requestID: WireUUID, certificate: DeviceCertificate, transferID: WireUUID, transferChannelID: WireUUID) throws {
        try LinkPlaintext.requireCertificate(certificate)
        try LinkPlaintext.requireNonZero(transferID, "transfer id")
        self.requestID = requestID
        self.certificate = certificate
        self.transferID = transferID
        self.transferChannelID = transferChannelID
    }

    /// Reads the fields after the kind byte.
    static func read(from reader: inout SecretWireReader) throws -> LinkGrant {
        let requestID = try reader.readUUID()
        let certificate = try LinkPlaintext.readCertificate(from: &reader)
        return try LinkGrant(requestID: requestID, certificate: certificate, transferID: reader.readUUID(), transferChannelID: reader.readUUID())
    }

    /// Writes the fields after the kind byte.
    func write(into writer: inout SecretWireWriter) {
        writer.write(requestID.bytes)
        writer.write(certificate.bytes)
        writer.write(transferID.bytes)
        writer.write(transferChannelID.bytes)
    }
}
