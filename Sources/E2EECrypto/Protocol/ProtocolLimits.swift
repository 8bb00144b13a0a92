/// Every limit of the protocol in one place (docs/spec/protocol.md §2–§8), each with its reason.
/// Code checks these *before* allocating or moving any state.
public enum ProtocolLimits {
    // MARK: Envelopes (§8)

    /// Longest `content` accepted, in base64 characters, checked before decoding: bounds an
    /// envelope to 384 KiB so a hostile server cannot make a receiver allocate more.
    public static let maxContentBase64Length = 524_288
    /// Recipients of a DM or SKD envelope: at least one (someone must be able to read it) and at
    /// most 1,000 (bounds the work per message); the count is checked before any entry is read.
    public static let recipientCountRange = 1...1_000
    /// Largest payload in UTF-8 bytes (§6): a chat message, not a file transfer.
    public static let maxPayloadBytes = 65_536
    /// Deepest nesting of arrays and objects in a payload: the strict JSON parser recurses, and a
    /// hostile sender must not be able to exhaust the stack (the payload itself is flat).
    public static let maxPayloadNestingDepth = 32
    /// Most ids one announcement lists (§5.15): a group's worth of members or devices.
    public static let maxAnnouncementIDs = 1_000
    /// DM `payload_ct` and group `ct`: an AEAD tag at least, and at most a maximal payload plus tag.
    public static let payloadCiphertextRange = 16...65_552
    /// Shortest pairwise message: version byte, 52-byte header and a 16-byte tag.
    public static let minPairwiseMessageBytes = 69

    /// Most envelope bytes kept waiting in one channel this device has not accepted (a request,
    /// or declined; docs/spec/sync.md §3): anyone can add anyone to a group, so what strangers
    /// post before the user answers must not fill the device. A message over it is stored as
    /// not kept (`request_overflow`), without its envelope. 4 MiB holds thousands of ordinary
    /// messages.
    public static let maxRequestPendingBytes = 4 << 20
    /// How long a message from an unlinked device of a user with a user key waits
    /// (docs/spec/protocol.md §10.8): 30 days.
    public static let unlinkedWaitSeconds: Int64 = 30 * 86_400
    /// How long after a key change became due a message it would let through still waits: 7 days.
    public static let unlinkedWaitAfterDueChangeSeconds: Int64 = 7 * 86_400
    /// Messages waiting per (user, device) for the device to be linked.
    public static let maxUnlinkedWaitsPerDevice = 1_000
    /// Messages waiting per user for any of their devices to be linked.
    public static let maxUnlinkedWaitsPerUser = 5_000

    // MARK: Linking (§10.22, §11.2)

    /// Largest pairwise message a link envelope carries (§10.22): room for the largest chunk
    /// plaintext (``maxLinkChunkPlaintextBytes``) plus a prekey message's header and tag, and
    /// far below the `content` limit, so a link envelope is bounded before it is decrypted.
    public static let maxLinkPairwiseMessageBytes = 70_000
    /// Largest plaintext of a transfer chunk (kind `0x08`, type byte included): one largest
    /// record (``maxTransferRecordBodyBytes`` plus its 6-byte head) always fits in one chunk.
    public static let maxLinkChunkPlaintextBytes = 69_000
    /// Largest `len` of one transfer record (§11.2), checked before the body is read: a message
    /// record's 73 fixed bytes plus a maximal payload (``maxPayloadBytes``).
    public static let maxTransferRecordBodyBytes = 65_609
    /// Most records a new device accepts in one transfer (§11.2): bounds the import work a
    /// primary, or a server replaying chunks, can ask for.
    public static let maxTransferRecords = 1_000_000
    /// Most whole-record bytes a new device accepts in one transfer (§11.2): 256 MiB, the
    /// history a snapshot holds at most (it is cut at the oldest end beyond it).
    public static let maxTransferBytes = 256 << 20

    // MARK: Double Ratchet (§3)

    /// Most message keys one incoming message may make a chain skip: bounds the work a single
    /// forged-but-unverified header can demand.
    public static let maxRatchetSkip = 1_000
    /// Most skipped message keys kept per ratchet state; the oldest inserted are dropped first.
    public static let maxStoredSkippedKeysPerState = 2_000
    /// Archived states kept per remote device, most recently used first (simultaneous initiation).
    public static let maxArchivedSessions = 5
    /// Shortest time between two restarts of the ratchet with one remote device (§3.17), on
    /// this device's own clock: a message refused as too far ahead asks for a restart, and its
    /// header is not authenticated, so anyone who can post (the server) can ask; each restart
    /// costs the remote device a one-time prekey and both sides a fresh X3DH.
    public static let minRatchetRestartIntervalSeconds: Int64 = 3600

    // MARK: Sender keys (§4)

    /// Largest forward jump in iterations a group message may make a receiver derive.
    public static let maxSenderKeyJump = 2_000
    /// Most skipped group message keys kept per sender key (the highest iterations are kept).
    public static let maxStoredSenderKeySkippedKeys = 2_000
    /// A sending device rotates its sender key after this many messages.
    public static let senderKeyRotationMessageCount = 100

    // MARK: Prekeys and retention (§1, §2, §4)

    /// A new signed prekey is made this often.
    public static let signedPrekeyRotationSeconds: Int64 = 7 * 24 * 3600
    /// A replaced signed prekey is kept this long (late prekey messages), then wiped.
    public static let signedPrekeyRetentionSeconds: Int64 = 30 * 24 * 3600
    /// A consumed one-time prekey stays usable this long: the reference server may hand the
    /// same one-time prekey to several initiators.
    public static let oneTimePrekeyGraceSeconds: Int64 = 7 * 24 * 3600
    /// A receiving sender-key state is wiped this long after its last use, once a newer key of
    /// the same (channel, sender device) exists.
    public static let senderKeyStateRetentionSeconds: Int64 = 7 * 24 * 3600
    /// Longest published key string (`identity_key`, `signed_pre_key`, signature, one-time
    /// prekey) accepted from a bundle, in base64 characters, checked before decoding: the server
    /// stores at most 255 characters per key field (docs/spec/server-api.md).
    public static let maxPublishedKeyBase64Length = 255
    /// One-time prekeys made at bootstrap.
    public static let initialOneTimePrekeyCount = 50
    /// Most one-time prekey rows a device keeps, unconsumed and consumed-in-grace together:
    /// others fetching bundles (or forged `keys.low_otp` frames) must not grow the local set
    /// without bound. Past it, the oldest consumed keys are wiped before their grace ends.
    public static let maxLocalOneTimePrekeys = 200

    // MARK: Stores at rest

    /// Argon2id passes a store file may ask for: a file whose cost is outside this range is
    /// refused before deriving (an edited `kdf_iterations` must not make opening run for
    /// minutes). libsodium's "sensitive" profile uses 4; 10 leaves room for slower choices.
    public static let storeKDFIterationsRange: ClosedRange<UInt64> = 1...10
    /// Argon2id memory in KiB a store file may ask for: libsodium's minimum of 8 KiB up to
    /// 1 GiB (libsodium's "sensitive" profile), so an edited file cannot demand more.
    public static let storeKDFMemoryKiBRange: ClosedRange<UInt64> = 8...1_048_576

    // MARK: Safety numbers (§7)

    /// SHA-512 iterations of the safety-number fingerprint (1 initial + 5,199 repeats).
    public static let safetyNumberIterations = 5_200
}
