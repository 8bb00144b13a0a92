import E2EECrypto
@_spi(StoreInternals) import E2EEKeyStore

/// A new device's running transfer (docs/spec/protocol.md §11.4–§11.6): the stored state and,
/// in memory, the messages held above `next_index` (at most 16; their opened copies stay sealed
/// in their timeline rows until committed, so a restart holds them again).
struct TransferReceiveRun: Sendable {
    var state: IncomingTransferState
    /// Held messages above `next_index`, with the timeline row that keeps each.
    var held: [UInt32: (LinkPlaintext, String?)] = [:]
    /// Whether the current gap was acknowledged already.
    var gapAcknowledged = false

    init(state: IncomingTransferState) {
        self.state = state
    }

    var manifest1: TransferManifest? { Self.manifest(state.manifest1) }
    var manifest2: TransferManifest? { Self.manifest(state.manifest2) }

    func manifest(_ phase: Int) -> TransferManifest? { phase == 1 ? manifest1 : manifest2 }

    /// The indexes of a phase's chunks (`nil`: none).
    func chunkRange(ofPhase phase: Int) -> ClosedRange<UInt32>? {
        guard let manifest1 else { return nil }
        let c1 = manifest1.chunkCount
        if phase == 1 { return c1 == 0 ? nil : 1...c1 }
        guard let c2 = manifest2?.chunkCount, c2 > 0 else { return nil }
        return (c1 + 2)...(c1 + 1 + c2)
    }

    /// The index of a phase's last chunk, if it has any.
    func lastIndex(ofPhase phase: Int) -> UInt32? { chunkRange(ofPhase: phase)?.upperBound }

    /// Records held in `phase` so far.
    func recordsHeld(inPhase phase: Int) -> Int {
        let before = Int(manifest1?.recordCount ?? 0)
        return phase == 1 ? min(state.recordsDone, before) : max(0, state.recordsDone - before)
    }

    /// Why a manifest is refused (`nil`: taken): counts beyond the transfer's bounds.
    static func refusal(of manifest: TransferManifest, recordsBefore: Int) -> String? {
        if manifest.trustCount > manifest.recordCount { return "a manifest with more trust records than records" }
        if recordsBefore + Int(manifest.recordCount) > ProtocolLimits.maxTransferRecords { return "a manifest over 1,000,000 records" }
        if UInt64(manifest.chunkCount) * UInt64(ProtocolLimits.maxLinkChunkPlaintextBytes) > UInt64(ProtocolLimits.maxTransferBytes) * 2 {
            return "a manifest with too many chunks"
        }
        return nil
    }

    /// How many whole records a chunk carries.
    /// - Throws: the decoder's errors (the chunk is refused whole).
    static func countRecords(_ records: SecretBytes) throws -> Int {
        var decoder = TransferRecordDecoder(records: records)
        var count = 0
        while try decoder.next() != nil { count += 1 }
        return count
    }

    /// The index of a manifest or chunk of `transferID`, nil for anything else.
    static func index(of plaintext: LinkPlaintext, transferID: String) -> UInt32? {
        switch plaintext {
        case .manifest(let manifest) where manifest.transferID.text == transferID: manifest.index
        case .chunk(let id, let index, _) where id.text == transferID: index
        default: nil
        }
    }

    static func manifest(_ bytes: [UInt8]?) -> TransferManifest? {
        guard let bytes, case .manifest(let manifest)? = try? LinkPlaintext.decode(SecretBytes(copying: bytes)) else { return nil }
        return manifest
    }
}
