import E2EECrypto

/// One phase of a transfer cut into chunks (docs/spec/protocol.md §11.2, §11.4): whole records
/// laid end to end, each chunk's records at most what a chunk plaintext holds after its head,
/// and the phase's digest over every record in order.
struct TrustChunks: Sendable {
    /// Room for records in one chunk: the chunk plaintext's limit less its head (type, kind,
    /// transfer id, index).
    static let recordRoom = ProtocolLimits.maxLinkChunkPlaintextBytes - 22

    /// The records of each chunk, in order.
    let chunks: [SecretBytes]
    /// How many records.
    let recordCount: Int
    /// SHA-256 over the records, each whole, in order.
    let digest: [UInt8]

    /// Cuts `records` into chunks.
    init(_ records: [TransferRecord]) {
        var chunks: [SecretBytes] = []
        var current: [SecretBytes] = []
        var size = 0
        var digest = TransferDigest()
        for record in records {
            let bytes = record.encoded()
            digest.add(wholeRecord: bytes)
            if size + bytes.count > Self.recordRoom, !current.isEmpty {
                chunks.append(Self.join(current))
                current = []
                size = 0
            }
            current.append(bytes)
            size += bytes.count
        }
        if !current.isEmpty { chunks.append(Self.join(current)) }
        self.chunks = chunks
        self.recordCount = records.count
        self.digest = digest.digest
    }

    /// `parts` one after the other, in one wiped buffer.
    static func join(_ parts: [SecretBytes]) -> SecretBytes {
        SecretBytes(count: parts.reduce(0) { $0 + $1.count }) { out in
            var offset = 0
            for part in parts {
                part.withUnsafeBytes { source in
                    UnsafeMutableRawBufferPointer(rebasing: out[offset..<(offset + source.count)]).copyMemory(from: source)
                }
                offset += part.count
            }
        }
    }
}
