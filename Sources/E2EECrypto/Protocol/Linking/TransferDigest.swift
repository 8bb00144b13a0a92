import CSodium

/// The `digest` of a transfer manifest (docs/spec/protocol.md §11.4), computed as records go
/// by: SHA-256 over the phase's whole records (`kind` to `body`), in order, with nothing between
/// them. Also counts the records it has seen.
public struct TransferDigest: Sendable {
    private var state = crypto_hash_sha256_state()
    /// Records added so far.
    public private(set) var recordCount = 0
    /// Whole-record bytes added so far.
    public private(set) var byteCount = 0

    /// An empty digest (SHA-256 of nothing until a record is added).
    public init() {
        _ = crypto_hash_sha256_init(&state)
    }

    /// Adds one whole record's bytes.
    public mutating func add(wholeRecord: some ByteView) {
        wholeRecord.withByteView { raw in
            _ = crypto_hash_sha256_update(&state, raw.cBase, UInt64(raw.count))
            byteCount += raw.count
        }
        recordCount += 1
    }

    /// Adds `record`, encoded.
    public mutating func add(_ record: TransferRecord) {
        add(wholeRecord: record.encoded())
    }

    /// The digest of what was added so far (adding may go on).
    public var digest: [UInt8] {
        var copy = state
        return [UInt8](unsafeUninitializedCapacity: SHA256.digestLength) { buffer, initialized in
            _ = crypto_hash_sha256_final(&copy, UnsafeMutableRawBufferPointer(buffer).cBase)
            initialized = SHA256.digestLength
        }
    }
}
