import E2EECrypto
@_spi(StoreInternals) import E2EEKeyStore

/// This device's own keys against the server (docs/spec/protocol.md §1, docs/spec/sync.md "Keys at runtime"):
/// bootstrap, one-time-prekey replenishment and signed-prekey rotation. Private keys are always
/// stored (one-time prekeys as pending) before anything is uploaded, and marked published after
/// the server accepted them, so a crash in between loses nothing.
struct KeyMaintenance: Sendable {
    let store: KeyStore
    let api: any ChatServerAPI
    let deviceID: DeviceID
    let identity: E2EECrypto.IdentityKeyPair
    let random: AnyRandomSource
    let now: @Sendable () -> StoreTime
    /// Serialises uploads: each one reads the stored certificate and replaces the server's whole
    /// record, so two at once (a replenishment after a prekey message beside a recert's
    /// republish) could land the older certificate last.
    let uploads: KeyedAsyncLock
    /// The key ``uploads`` holds for every `POST /keys/upload`.
    static let uploadLock = "keys.upload"

    /// Signed prekeys are replaced after this many seconds (7 days).
    static let signedPrekeyLifetime: Int64 = 7 * 24 * 3600
    /// Below this many unconsumed local one-time prekeys, replenish.
    static let lowWaterMark = 10

    /// Makes whatever is missing (signed prekey, one-time prekeys up to `oneTimePrekeys`),
    /// uploads the whole bundle, and marks the prekeys published. When everything is already in
    /// place locally and the server holds our identity, changes nothing.
    func bootstrap(oneTimePrekeys target: Int) async throws -> KeyBootstrapResult {
        let current = try await currentSignedPrekey()
        let pending = try await store.oneTimePrekeyCount(state: .pendingUpload)
        let published = try await store.oneTimePrekeyCount(state: .published)
        if let current, pending == 0, published > 0, try await serverHoldsOurRecord(current) {
            return .alreadyBootstrapped
        }
        if current == nil { _ = try await makeSignedPrekey() }
        let missing = target - pending - published
        if missing > 0 { try await generateOneTimePrekeys(count: missing) }
        return .uploaded(oneTimePrekeys: try await uploadFullBundle())
    }

    /// Tops the unconsumed one-time prekeys up to `target`, replacing rather than adding: when
    /// `serverRemaining` (from `keys.low_otp`) is lower than the local published count, the
    /// oldest published keys count as handed out and start their grace window (§2); the new
    /// keys then replace the server's whole list (so it offers only what is unconsumed here).
    /// Otherwise the new keys are appended. Either way the local set stays within `target`
    /// unconsumed and ``ProtocolLimits/maxLocalOneTimePrekeys`` rows. Returns how many were
    /// uploaded and the server's count after the upload.
    func replenish(target: Int, serverRemaining: Int?) async throws -> (uploaded: Int, serverCount: Int?) {
        try await publishPending()
        let published = try await store.oneTimePrekeyCount(state: .published)
        let handedOut = try await store.retireOldestPublishedOneTimePrekeys(count: published - min(published, serverRemaining ?? published), at: now())
        let missing = target - (published - handedOut)
        guard missing > 0 else { return (0, nil) }
        let made = try await generateOneTimePrekeys(count: missing)
        try await store.trimOneTimePrekeys(keeping: ProtocolLimits.maxLocalOneTimePrekeys)
        if handedOut > 0 { return (made.count, try await uploadFullBundle()) }
        let serverCount = try await api.addOneTimePreKeys(deviceID: deviceID, keys: try made.map { try StoredKeyConversions.published($0).base64 })
        try await store.markOneTimePrekeysPublished(ids: made.map(\.id))
        return (made.count, serverCount)
    }

    /// Whether fewer than ``lowWaterMark`` unconsumed one-time prekeys are left locally.
    func isLow() async throws -> Bool {
        try await store.oneTimePrekeyCount(state: .published) + store.oneTimePrekeyCount(state: .pendingUpload) < Self.lowWaterMark
    }

    /// Makes a new signed prekey when the current one is older than 7 days (or `force`), and
    /// uploads the bundle. Returns whether it rotated.
    func rotateSignedPrekeyIfDue(force: Bool) async throws -> Bool {
        if !force, let current = try await currentSignedPrekey(),
           now().microseconds - current.createdAt.microseconds < Self.signedPrekeyLifetime * 1_000_000 {
            return false
        }
        _ = try await makeSignedPrekey()
        _ = try await uploadFullBundle()
        return true
    }

    /// Uploads identity, current signed prekey record and every unconsumed one-time prekey
    /// (`POST /keys/upload` replaces the server's list, so consumed ones disappear from it),
    /// then marks the pending ones published. The record carries the stored certificate (the
    /// zero one unless set) and is signed here, so a rotation keeps the certificate. Returns how
    /// many one-time prekeys are on offer.
    @discardableResult
    func uploadFullBundle() async throws -> Int {
        try await uploads.withLock(Self.uploadLock) { try await uploadFullBundleNow() }
    }

    private func uploadFullBundleNow() async throws -> Int {
        guard let spk = try await currentSignedPrekey() else { throw MessagingError.keysNotBootstrapped }
        let pending = try await store.read { [store] db in try store.oneTimePrekeyStore.loadOneTimePrekeys(state: .pendingUpload, db) }
        let published = try await store.read { [store] db in try store.oneTimePrekeyStore.loadOneTimePrekeys(state: .published, db) }
        let offered = (published + pending).sorted { $0.id < $1.id }
        let record = try await signedPrekeyRecord(spk)
        try await api.uploadKeys(KeyBundleUpload(
            deviceID: deviceID, identityKey: identity.publicIdentity.base64,
            signedPreKey: record.base64, signedPreKeySignature: Base64.encode(record.signature(by: identity)),
            oneTimePreKeys: try offered.map { try StoredKeyConversions.published($0).base64 }
        ))
        if !pending.isEmpty { try await store.markOneTimePrekeysPublished(ids: pending.map(\.id)) }
        return offered.count
    }

    /// Stores `certificate` as the one this device publishes (the zero certificate clears it)
    /// and uploads the bundle with the record carrying it, signed by this device's `SIG`. The
    /// certificate stays in every later upload, rotations included, until replaced. It is stored
    /// before the upload, so an upload that fails publishes it with the next one (a bootstrap's
    /// included).
    /// - Throws: ``MessagingError/keysNotBootstrapped`` before the first bootstrap, ``ServerError``,
    ///   key store errors.
    func publish(certificate: DeviceCertificate) async throws {
        try await store.storePublishedCertificate(certificate.isZero ? nil : certificate.bytes, at: now())
        try await uploadFullBundle()
    }

    /// What the account reports about its keys; `serverCount` from our own bundle if asked.
    func status(serverCount: Int?) async throws -> KeyStatus {
        let spk = try await currentSignedPrekey()
        return KeyStatus(
            publishedOneTimePrekeys: try await store.oneTimePrekeyCount(state: .published),
            pendingOneTimePrekeys: try await store.oneTimePrekeyCount(state: .pendingUpload),
            consumedOneTimePrekeys: try await store.oneTimePrekeyCount(state: .consumed),
            serverOneTimePrekeys: serverCount,
            signedPrekeyAgeSeconds: spk.map { (now().microseconds - $0.createdAt.microseconds) / 1_000_000 },
            signedPrekeyID: spk?.id,
            identityFingerprint: nil
        )
    }

    private func publishPending() async throws {
        if try await store.oneTimePrekeyCount(state: .pendingUpload) > 0 { try await uploadFullBundle() }
    }

    private func currentSignedPrekey() async throws -> E2EEKeyStore.SignedPrekey? {
        try await store.signedPrekeys().first(where: \.isCurrent)
    }

    /// The record this device publishes for `spk`: its key and the stored certificate.
    private func signedPrekeyRecord(_ spk: E2EEKeyStore.SignedPrekey) async throws -> SignedPrekeyRecord {
        try StoredKeyConversions.record(spk, certificate: StoredKeyConversions.certificate(await store.publishedCertificate()))
    }

    /// Whether the server lists our identity with the record we would publish now: a store
    /// from before the record changed form (text 1.3), or a certificate set since the last
    /// upload, uploads again.
    private func serverHoldsOurRecord(_ spk: E2EEKeyStore.SignedPrekey) async throws -> Bool {
        do {
            let bundle = try await api.bundle(deviceID: deviceID)
            let record = try await signedPrekeyRecord(spk)
            return bundle.identityKey == identity.publicIdentity.base64 && bundle.signedPreKey == record.base64
        } catch ServerError.notFound {
            return false
        }
    }

    func makeSignedPrekey() async throws -> E2EEKeyStore.SignedPrekey {
        let retained = Set(try await store.signedPrekeys().map(\.id))
        let prekey = try E2EECrypto.SignedPrekey.generate(identity: identity, retainedIDs: retained, createdAt: now().microseconds / 1_000_000,
                                                          using: random)
        let record = StoredKeyConversions.record(prekey, isCurrent: true)
        try await store.rotateSignedPrekey(record)
        return record
    }

    @discardableResult
    func generateOneTimePrekeys(count: Int) async throws -> [E2EEKeyStore.OneTimePrekey] {
        let random = self.random
        return try await store.addOneTimePrekeys(count: count, now: now()) { id in
            let prekey = try E2EECrypto.OneTimePrekey(id: id, using: random)
            return OneTimePrekeyMaterial(publicKey: prekey.keyPair.publicKey.rawRepresentation, privateKey: prekey.keyPair.rawRepresentation)
        }
    }
}
