/// The plaintext of a link envelope's pairwise message (docs/spec/protocol.md §10.22):
/// `0x03 || kind || fields`, each kind of an exact length (a chunk: at most
/// ``ProtocolLimits/maxLinkChunkPlaintextBytes``), nothing after. Type byte `0x03` is
/// ``PairwisePlaintext/reservedLinkType``: a DM or SKD entry refuses it, and a link envelope
/// carries nothing else.
///
/// Nonces and chunk records are ``SecretBytes`` (they come out of the ratchet and stay wiped);
/// ids, the commitment, certificates and signatures are public.
public enum LinkPlaintext: Sendable, Equatable, CustomStringConvertible {
    /// The kind byte, with each kind's plaintext length.
    public enum Kind: UInt8, Sendable, Hashable, CaseIterable {
        /// `0x01` request.
        case request = 0x01
        /// `0x02` accept.
        case accept = 0x02
        /// `0x03` reveal.
        case reveal = 0x03
        /// `0x04` grant.
        case grant = 0x04
        /// `0x05` cancel.
        case cancel = 0x05
        /// `0x06` recert.
        case recert = 0x06
        /// `0x07` manifest.
        case manifest = 0x07
        /// `0x08` chunk.
        case chunk = 0x08
        /// `0x09` ack.
        case ack = 0x09

        /// The exact plaintext length, type and kind bytes included (a chunk's is its least).
        public var plaintextLength: Int {
            switch self {
            case .request, .accept, .reveal: 50
            case .grant: 2 + LinkGrant.fieldsLength
            case .cancel: 19
            case .recert: 2 + DeviceCertificate.length + Ed25519.signatureLength
            case .manifest: 2 + TransferManifest.fieldsLength
            case .chunk, .ack: 22
            }
        }
    }

    /// Length of a nonce and of the commitment.
    public static let nonceLength = 32

    /// N asks to be linked, committing to `nonce_N`: `commit = SHA-256("e2ee-link-commit-v1" || nonce_N)`.
    case request(requestID: WireUUID, commit: [UInt8])
    /// The primary answers with its nonce `nonce_P`.
    case accept(requestID: WireUUID, nonce: SecretBytes)
    /// N reveals `nonce_N`.
    case reveal(requestID: WireUUID, nonce: SecretBytes)
    /// The primary grants a certificate and a transfer.
    case grant(LinkGrant)
    /// Either side cancels a request or a transfer (`id` is the one cancelled).
    case cancel(id: WireUUID, reason: LinkCancelReason)
    /// The primary sends a renewed certificate with `primary_sig` (``PrimarySignature``).
    case recert(certificate: DeviceCertificate, primarySignature: [UInt8])
    /// A transfer phase's manifest.
    case manifest(TransferManifest)
    /// A transfer chunk: whole records (§11.2, ``TransferRecordDecoder``).
    case chunk(transferID: WireUUID, index: UInt32, records: SecretBytes)
    /// N holds every transfer message below `nextIndex`.
    case ack(transferID: WireUUID, nextIndex: UInt32)

    /// The kind.
    public var kind: Kind {
        switch self {
        case .request: .request
        case .accept: .accept
        case .reveal: .reveal
        case .grant: .grant
        case .cancel: .cancel
        case .recert: .recert
        case .manifest: .manifest
        case .chunk: .chunk
        case .ack: .ack
        }
    }

    /// The plaintext bytes to encrypt pairwise.
    /// - Throws: ``ProtocolError/malformed(_:reason:)`` at ``WireLocation/linkPlaintext`` for a
    ///   commitment, nonce or signature of the wrong length, a zero transfer id, the zero
    ///   certificate in a recert; ``ProtocolError/limitExceeded(_:limit:actual:)`` for a chunk
    ///   above ``ProtocolLimits/maxLinkChunkPlaintextBytes``. What this refuses, ``decode(_:)``
    ///   refuses too.
    public func encoded() throws -> SecretBytes {
        let count = try checkedLength()
        return SecretWireWriter.build(count: count) { writer in
            writer.write(PairwisePlaintext.reservedLinkType)
            writer.write(kind.rawValue)
            switch self {
            case .request(let requestID, let commit):
                writer.write(requestID.bytes)
                writer.write(commit)
            case .accept(let requestID, let nonce), .reveal(let requestID, let nonce):
                writer.write(requestID.bytes)
                writer.write(nonce)
            case .grant(let grant):
                grant.write(into: &writer)
            case .cancel(let id, let reason):
                writer.write(id.bytes)
                writer.write(reason.rawValue)
            case .recert(let certificate, let signature):
                writer.write(certificate.bytes)
                writer.write(signature)
            case .manifest(let manifest):
                manifest.write(into: &writer)
            case .chunk(let transferID, let index, let records):
                writer.write(transferID.bytes)
                writer.write(index)
                writer.write(records)
            case .ack(let transferID, let nextIndex):
                writer.write(transferID.bytes)
                writer.write(nextIndex)
            }
        }
    }

    /// Strictly decodes a decrypted link plaintext: type `0x03`, a known kind, its exact
    /// length (checked before any field is read), every field's form.
    /// - Throws: at ``WireLocation/linkPlaintext``: ``ProtocolError/truncated(_:expected:actual:)``,
    ///   ``ProtocolError/trailingBytes(_:count:)``, ``ProtocolError/unsupportedVersion(_:value:)``
    ///   for another type byte or an unknown kind, ``ProtocolError/limitExceeded(_:limit:actual:)``
    ///   for a chunk above its bound, ``ProtocolError/malformed(_:reason:)`` for a zero transfer
    ///   id, an unknown cancel reason or manifest phase, a flag byte other than 0 or 1, a trust
    ///   count above the record count, or the zero certificate in a grant or recert; at
    ///   ``WireLocation/certificate``, ``DeviceCertificate``'s refusals.
    public static func decode(_ bytes: SecretBytes) throws -> LinkPlaintext {
        var reader = SecretWireReader(bytes, location: .linkPlaintext)
        let type = try reader.readUInt8()
        guard type == PairwisePlaintext.reservedLinkType else { throw ProtocolError.unsupportedVersion(.linkPlaintext, value: type) }
        let kindByte = try reader.readUInt8()
        guard let kind = Kind(rawValue: kindByte) else { throw ProtocolError.unsupportedVersion(.linkPlaintext, value: kindByte) }
        try checkLength(bytes.count, of: kind)
        let result: LinkPlaintext
        switch kind {
        case .request: result = .request(requestID: try reader.readUUID(), commit: try reader.readPublic(nonceLength))
        case .accept: result = .accept(requestID: try reader.readUUID(), nonce: try reader.readSecret(nonceLength))
        case .reveal: result = .reveal(requestID: try reader.readUUID(), nonce: try reader.readSecret(nonceLength))
        case .grant: result = .grant(try LinkGrant.read(from: &reader))
        case .cancel: result = .cancel(id: try reader.readUUID(), reason: try LinkCancelReason(wire: reader.readUInt8()))
        case .recert:
            let certificate = try readCertificate(from: &reader)
            try requireCertificate(certificate)
            result = .recert(certificate: certificate, primarySignature: try reader.readPublic(Ed25519.signatureLength))
        case .manifest: result = .manifest(try TransferManifest.read(from: &reader))
        case .chunk:
            let transferID = try reader.readUUID()
            try requireNonZero(transferID, "transfer id")
            result = .chunk(transferID: transferID, index: try reader.readUInt32(), records: try reader.readSecret(reader.remainingCount))
        case .ack:
            let transferID = try reader.readUUID()
            try requireNonZero(transferID, "transfer id")
            result = .ack(transferID: transferID, nextIndex: try reader.readUInt32())
        }
        try reader.requireEnd()
        return result
    }

    /// Never shows nonces or records.
    public var description: String {
        switch self {
        case .request(let id, _): "LinkPlaintext.request(\(id))"
        case .accept(let id, _): "LinkPlaintext.accept(\(id), <redacted>)"
        case .reveal(let id, _): "LinkPlaintext.reveal(\(id), <redacted>)"
        case .grant(let grant): "LinkPlaintext.grant(\(grant.requestID), transfer \(grant.transferID))"
        case .cancel(let id, let reason): "LinkPlaintext.cancel(\(id), \(reason))"
        case .recert(let certificate, _): "LinkPlaintext.recert(epoch \(certificate.epoch), not_after \(certificate.notAfter))"
        case .manifest(let manifest): "LinkPlaintext.manifest(\(manifest.transferID), index \(manifest.index), phase \(manifest.phase.rawValue))"
        case .chunk(let id, let index, let records): "LinkPlaintext.chunk(\(id), index \(index), <redacted \(records.count) bytes>)"
        case .ack(let id, let next): "LinkPlaintext.ack(\(id), next \(next))"
        }
    }

    // MARK: Checks shared by the kinds

    /// The encoded length after checking every field ``decode(_:)`` checks.
    private func checkedLength() throws -> Int {
        switch self {
        case .request(_, let commit):
            try Self.requireLength(commit.count, Self.nonceLength, "commitment")
        case .accept(_, let nonce), .reveal(_, let nonce):
            try Self.requireLength(nonce.count, Self.nonceLength, "nonce")
        case .grant, .manifest, .cancel:
            break
        case .recert(let certificate, let signature):
            try Self.requireCertificate(certificate)
            try Self.requireLength(signature.count, Ed25519.signatureLength, "primary_sig")
        case .chunk(let transferID, _, let records):
            try Self.requireNonZero(transferID, "transfer id")
            let length = Kind.chunk.plaintextLength + records.count
            try Self.checkLength(length, of: .chunk)
            return length
        case .ack(let transferID, _):
            try Self.requireNonZero(transferID, "transfer id")
        }
        return kind.plaintextLength
    }

    /// A plaintext of `length` bytes must be exactly its kind's (a chunk: within its bounds).
    private static func checkLength(_ length: Int, of kind: Kind) throws {
        let expected = kind.plaintextLength
        if kind == .chunk, length > ProtocolLimits.maxLinkChunkPlaintextBytes {
            throw ProtocolError.limitExceeded(.linkPlaintext, limit: ProtocolLimits.maxLinkChunkPlaintextBytes, actual: length)
        }
        guard length >= expected else { throw ProtocolError.truncated(.linkPlaintext, expected: expected, actual: length) }
        guard kind == .chunk || length == expected else { throw ProtocolError.trailingBytes(.linkPlaintext, count: length - expected) }
    }

    private static func requireLength(_ actual: Int, _ expected: Int, _ what: String) throws {
        guard actual == expected else { throw ProtocolError.malformed(.linkPlaintext, reason: "\(what) of \(actual) bytes, expected \(expected)") }
    }

    /// Transfer ids are never zero (a zero one names no transfer).
    static func requireNonZero(_ id: WireUUID, _ what: String) throws {
        guard id.bytes.contains(where: { $0 != 0 }) else { throw ProtocolError.malformed(.linkPlaintext, reason: "zero \(what)") }
    }

    /// A grant or recert carries a certificate, never the zero one ("no certificate").
    static func requireCertificate(_ certificate: DeviceCertificate) throws {
        guard !certificate.isZero else { throw ProtocolError.malformed(.linkPlaintext, reason: "the zero certificate") }
    }

    /// A 104-byte certificate read with ``DeviceCertificate``'s own strict parser.
    static func readCertificate(from reader: inout SecretWireReader) throws -> DeviceCertificate {
        try DeviceCertificate(bytes: reader.readPublic(DeviceCertificate.length))
    }
}
