/// The manifest of one phase of a link transfer (kind `0x07`, docs/spec/protocol.md §10.22,
/// §11.4): which transfer, its place in the transfer's index space, how many records and
/// chunks the phase holds, whether history was cut, and the SHA-256 over the phase's whole
/// records in order (``TransferDigest``).
public struct TransferManifest: Sendable, Hashable {
    /// The transfer's two phases: 1 (the snapshot), 2 (what changed since).
    public enum Phase: UInt8, Sendable, Hashable, CaseIterable {
        /// The snapshot taken when manifest 1 is sent.
        case snapshot = 1
        /// What changed between the snapshot and the primary fixing phase 2.
        case changes = 2
    }

    /// Length of the fields after the plaintext's type and kind bytes.
    static let fieldsLength = 66

    /// The transfer (never zero).
    public let transferID: WireUUID
    /// The manifest's index in the transfer's one index space.
    public let index: UInt32
    /// Which phase it opens.
    public let phase: Phase
    /// How many of the phase's records are trust records (they come first).
    public let trustCount: UInt32
    /// How many records the phase holds in all.
    public let recordCount: UInt32
    /// How many chunks follow it in this phase.
    public let chunkCount: UInt32
    /// Whether history was cut at the oldest end (the 256 MiB bound).
    public let truncated: Bool
    /// SHA-256 over the phase's whole records, in order.
    public let digest: [UInt8]

    /// A manifest, its fields checked as a reader checks them.
    /// - Throws: ``ProtocolError/malformed(_:reason:)`` at ``WireLocation/linkPlaintext`` for a
    ///   zero transfer id, a trust count above the record count, or a digest that is not 32 bytes.
    public init(transferID: WireUUID, index: UInt32, phase: Phase, trustCount: UInt32, recordCount: UInt32, chunkCount: UInt32,
                truncated: Bool, digest: [UInt8]) throws {
        try LinkPlaintext.requireNonZero(transferID, "transfer id")
        guard trustCount <= recordCount else {
            throw ProtocolError.malformed(.linkPlaintext, reason: "trust count \(trustCount) above record count \(recordCount)")
        }
        guard digest.count == SHA256.digestLength else { throw ProtocolError.malformed(.linkPlaintext, reason: "digest of \(digest.count) bytes") }
        self.transferID = transferID
        self.index = index
        self.phase = phase
        self.trustCount = trustCount
        self.recordCount = recordCount
        self.chunkCount = chunkCount
        self.truncated = truncated
        self.digest = digest
    }

    /// Reads the fields after the kind byte.
    static func read(from reader: inout SecretWireReader) throws -> TransferManifest {
        let transferID = try reader.readUUID()
        let index = try reader.readUInt32()
        let phaseByte = try reader.readUInt8()
        guard let phase = Phase(rawValue: phaseByte) else { throw ProtocolError.malformed(.linkPlaintext, reason: "phase \(phaseByte)") }
        let trustCount = try reader.readUInt32()
        let recordCount = try reader.readUInt32()
        let chunkCount = try reader.readUInt32()
        let truncated = try reader.readFlag()
        return try TransferManifest(transferID: transferID, index: index, phase: phase, trustCount: trustCount, recordCount: recordCount,
                                    chunkCount: chunkCount, truncated: truncated, digest: reader.readPublic(SHA256.digestLength))
    }

    /// Writes the fields after the kind byte.
    func write(into writer: inout SecretWireWriter) {
        writer.write(transferID.bytes)
        writer.write(index)
        writer.write(phase.rawValue)
        writer.write(trustCount)
        writer.write(recordCount)
        writer.write(chunkCount)
        writer.write(truncated)
        writer.write(digest)
    }
}
