/// Reads the whole records of one chunk (docs/spec/protocol.md §11.2) one at a time, so an
/// importer never holds more than a chunk and one record. A chunk must end on a record
/// boundary: a record cut at its end is refused, never carried into the next chunk.
///
/// Each record's `len` is checked against ``ProtocolLimits/maxTransferRecordBodyBytes`` before
/// its body is read. Once ``next()`` throws, the chunk is refused as a whole: records it already
/// returned are not to be kept apart from it.
public struct TransferRecordDecoder {
    private var reader: SecretWireReader
    private let bytes: SecretBytes

    /// A decoder over the records of a chunk (``LinkPlaintext/chunk(transferID:index:records:)``).
    public init(records: SecretBytes) {
        self.bytes = records
        self.reader = SecretWireReader(records, location: .transferRecord)
    }

    /// Whether every record has been read.
    public var isAtEnd: Bool { reader.remainingCount == 0 }

    /// Bytes read so far.
    var offset: Int { reader.offset }

    /// The next record, or `nil` at the end of the chunk.
    /// - Throws: at ``WireLocation/transferRecord``: ``ProtocolError/unsupportedVersion(_:value:)``
    ///   for an unknown kind, version or trust sub-kind (`0x07`, reserved, included),
    ///   ``ProtocolError/limitExceeded(_:limit:actual:)`` for a `len` or payload above its bound,
    ///   ``ProtocolError/truncated(_:expected:actual:)`` for a record cut short (by its `len` or
    ///   by the chunk's end), ``ProtocolError/trailingBytes(_:count:)`` for a body longer than
    ///   its kind, ``ProtocolError/malformed(_:reason:)`` for an unknown enumerated value, flag
    ///   or message flag bit; the identity blob's, key's and certificate's own refusals.
    public mutating func next() throws -> TransferRecord? {
        guard !isAtEnd else { return nil }
        return try TransferRecord.read(from: &reader).record
    }

    /// The next record as ``next()``, its whole bytes (`kind` to `body`) added to `digest`.
    /// - Throws: as ``next()``; `digest` is unchanged when it throws.
    public mutating func next(updating digest: inout TransferDigest) throws -> TransferRecord? {
        guard !isAtEnd else { return nil }
        let start = reader.offset
        let (record, length) = try TransferRecord.read(from: &reader)
        digest.add(wholeRecord: bytes.slice(start..<(start + length)))
        return record
    }
}
