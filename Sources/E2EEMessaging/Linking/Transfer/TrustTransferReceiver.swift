import E2EECrypto
@_spi(StoreInternals) import E2EEKeyStore

/// The new device's side of a transfer's trust part (docs/spec/protocol.md §11.1, §11.4–§11.6):
/// takes manifests and chunks only from its primary, for its transfer, in index order (later
/// ones held, at most 16); once phase 1's chunks are all held it checks the record count and
/// the digest and imports the trust records in one transaction; it acknowledges what it holds
/// after each step. A mismatch imports nothing and fails the transfer (the user retries).
struct TrustTransferReceiver: Sendable {
    /// What one message did.
    enum Step: Sendable, Equatable {
        /// Nothing (a duplicate, another transfer's, out of range).
        case none
        /// Acknowledge everything below this index.
        case acknowledge(UInt32)
        /// Phase 1 is complete: import these records, then acknowledge.
        case importTrust([TrustRecord], acknowledge: UInt32)
        /// The transfer is complete: acknowledge the last message.
        case done(acknowledge: UInt32)
        /// The transfer failed (counts or digest): nothing is imported.
        case failed(String)
    }

    /// Most messages held above the next index.
    static let heldLimit = 16

    let transferID: WireUUID
    private(set) var next: UInt32 = 0
    private var manifest: TransferManifest?
    private var chunks: [SecretBytes] = []
    private var held: [UInt32: LinkPlaintext] = [:]
    private(set) var finished = false

    init(transferID: WireUUID) {
        self.transferID = transferID
    }

    /// Takes one message of the transfer (already checked to come from the primary).
    mutating func receive(_ plaintext: LinkPlaintext) -> Step {
        guard !finished, let index = Self.index(of: plaintext, transferID: transferID) else { return .none }
        if index < next { return .acknowledge(next) }  // a duplicate: acknowledge again
        if index > next {
            guard held.count < Self.heldLimit || held[index] != nil else { return .none }
            held[index] = plaintext
            return .acknowledge(next)
        }
        var step = apply(plaintext)
        while case .acknowledge = step, let following = held.removeValue(forKey: next) {
            step = apply(following)
        }
        return step
    }

    private mutating func apply(_ plaintext: LinkPlaintext) -> Step {
        switch plaintext {
        case .manifest(let manifest) where manifest.phase == .snapshot && self.manifest == nil:
            guard manifest.trustCount == manifest.recordCount else { return fail("phase 1 carries only trust records") }
            self.manifest = manifest
            next += 1
            return manifest.chunkCount == 0 ? importPhase1() : .acknowledge(next)
        case .chunk(_, _, let records):
            guard let manifest, chunks.count < Int(manifest.chunkCount) else { return fail("a chunk beyond the manifest's count") }
            chunks.append(records)
            next += 1
            return chunks.count == Int(manifest.chunkCount) ? importPhase1() : .acknowledge(next)
        case .manifest(let manifest) where manifest.phase == .changes && self.manifest != nil:
            guard manifest.recordCount == 0 else { return fail("phase 2 with records is not built here yet") }
            next += 1
            finished = true
            return .done(acknowledge: next)
        default:
            return fail("a transfer message out of order")
        }
    }

    private mutating func importPhase1() -> Step {
        guard let manifest else { return fail("no manifest") }
        var digest = TransferDigest()
        var records: [TrustRecord] = []
        for chunk in chunks {
            var decoder = TransferRecordDecoder(records: chunk)
            do {
                while let record = try decoder.next(updating: &digest) {
                    guard case .trust(let trust) = record else { return fail("a message record in the trust part") }
                    records.append(trust)
                    guard records.count <= ProtocolLimits.maxTransferRecords else { return fail("too many records") }
                }
            } catch {
                return fail("a record that does not parse")
            }
        }
        guard records.count == Int(manifest.recordCount) else { return fail("\(records.count) records, the manifest says \(manifest.recordCount)") }
        guard ConstantTime.equals(digest.digest, manifest.digest) else { return fail("the digest does not match the manifest") }
        chunks = []
        return .importTrust(records, acknowledge: next)
    }

    private mutating func fail(_ reason: String) -> Step {
        finished = true
        chunks = []
        held = [:]
        return .failed(reason)
    }

    /// The index of a transfer message of `transferID`, nil for anything else.
    static func index(of plaintext: LinkPlaintext, transferID: WireUUID) -> UInt32? {
        switch plaintext {
        case .manifest(let manifest) where manifest.transferID == transferID: manifest.index
        case .chunk(let id, let index, _) where id == transferID: index
        default: nil
        }
    }
}
