import E2EECrypto
import Foundation
import Synchronization
@_spi(StoreInternals) import E2EEKeyStore

/// The primary's side of text 1.3 for a single device (docs/spec/protocol.md §10.12–§10.13):
/// creates the user key and the primary file, and renews this device's own certificate. Every
/// certificate is logged in the file (saved atomically) before the store's mirror follows and
/// before it is published, so a crash never publishes a certificate the log lacks.
struct PrimaryIssuer: Sendable {
    let store: KeyStore
    let keychain: (any PrimaryFileKeychain)?
    let api: any ChatServerAPI
    let device: LocalDevice
    let keys: KeyMaintenance
    let events: EventBroadcaster
    let random: AnyRandomSource
    /// The clock of §10.19, unix seconds.
    let systemSeconds: @Sendable () -> Int64

    /// What a renewal did.
    enum Outcome: Sendable, Equatable {
        /// This device is not the primary (or the account has no key).
        case notPrimary
        /// Nothing was due.
        case upToDate
        /// A new certificate was issued and published (or will be, with the next upload).
        case issued(notAfter: UInt32)
        /// The current certificate was published again.
        case republished
        /// A certificate was due and none was issued.
        case held(RenewalRule.Hold)
    }

    var file: PrimaryFile? { store.path.map(PrimaryFile.init(storePath:)) }
    var item: String { PrimaryFile.keychainItem(userID: device.userID.rawValue) }

    // MARK: Creating

    /// Creates the user key: the file (epoch 1, this device kept), this device's first
    /// certificate logged in it, the store's mirror, then the upload (skipped before the first
    /// bootstrap, which publishes it).
    /// - Throws: ``MessagingError/notPrimary`` or ``MessagingError/userKeyExists`` when the
    ///   account has a key, ``MessagingError/primaryFileUnprotected``,
    ///   ``MessagingError/clockNotConfirmed``, ``PrimaryFileError``, ``ServerError``, key store errors.
    func create() async throws -> OwnUserKeyRecord {
        if let existing = try await loadRecord() {
            throw existing.role == .primary ? MessagingError.userKeyExists : MessagingError.notPrimary
        }
        guard let keychain, let file else { throw MessagingError.primaryFileUnprotected }
        let (clock, _) = try await advanceClock()
        if clock.readings.wentBack || clock.readings.suspect { throw MessagingError.clockNotConfirmed }
        do { try file.protect() } catch { throw MessagingError.primaryFileUnprotected }
        guard let key = try keychain.key(item: item, create: true), key.count == PrimaryFile.keyLength else {
            throw MessagingError.primaryFileUnprotected
        }
        // A file left by a creation that crashed before the store recorded it is taken up again.
        var contents = file.exists ? try file.load(key: key)
            : PrimaryFileContents(fileID: random.bytes(count: 16), userKeySeed: SecretBytes.random(count: Ed25519.seedLength, using: random),
                                  epoch: 1, logCount: 0, trustCounter: 0, mark: clock.now, kept: [device.deviceID.rawValue], removed: [], log: [])
        let certificate = try issue(into: &contents, now: clock.now)
        try save(contents, to: file, key: key)
        let record = OwnUserKeyRecord(role: .primary, userKey: try contents.userKey().publicKey.rawRepresentation,
                                      primaryDeviceID: device.deviceID.rawValue, certificate: certificate.bytes, fileID: contents.fileID,
                                      epoch: contents.epoch, logCount: contents.logCount, trustCounter: contents.trustCounter, createdAt: clock.now)
        let ownUser = device.userID.rawValue, ownDevice = device.deviceID.rawValue
        try await store.write { [store] db in
            try store.ownUserKeyStore.store(record, db)
            let legacy = try store.contactKeyStore.trustedDevices(userID: ownUser, db).subtracting([ownDevice])
            try store.ownUserKeyStore.addLegacyDevices(legacy.sorted().map { LegacyOwnDevice(deviceID: $0, lapsesAt: clock.now + RenewalRule.lifetime) }, db)
        }
        try await publish(certificate)
        return record
    }

    // MARK: Renewing

    /// Runs §10.13 for this device: checks the file against the store (a stop is recorded and
    /// surfaced once), reads our own listing (best effort), and issues, republishes or holds.
    /// - Throws: ``MessagingError/primaryFileUnprotected``, ``PrimaryFileError`` (a damaged or
    ///   unreadable file, a key the keychain no longer gives), key store errors. A server that
    ///   cannot be reached only leaves the listing unread or the upload for later.
    func renew() async throws -> Outcome {
        guard var record = try await loadRecord(), record.role == .primary else { return .notPrimary }
        let (clock, _) = try await advanceClock()
        guard record.issuingStopped == nil else { return try await held(.stopped(record.issuingStopped ?? .fileMissing), record: record, clock: clock) }
        guard let keychain, let file else { throw MessagingError.primaryFileUnprotected }
        guard file.exists else { return try await stop(.fileMissing, record: &record, clock: clock) }
        guard let key = try keychain.key(item: item, create: false) else { throw PrimaryFileError.keyUnavailable }
        var contents = try file.load(key: key)
        if contents.fileID != record.fileID || record.epoch > contents.epoch || record.logCount > contents.logCount
            || record.trustCounter > contents.trustCounter {
            return try await stop(.restoredFile, record: &record, clock: clock)
        }
        let listing = await ownListing(userKey: record.userKey, clock: clock)
        if let unlogged = listing?.foreign.filter({ !contents.logs(certificate: $0.certificate) }), !unlogged.isEmpty {
            // Each device carrying one is named (K30: a restored file and store meet the newer
            // certificate they issued to a kept device, or a copy of the key certified it).
            for device in Set(unlogged.map(\.deviceID)).sorted() { events.publish(.linking(.certificateNotLogged(DeviceID(device)))) }
            return try await stop(.anotherHolder, record: &record, clock: clock)
        }
        let ownDevice = device.deviceID.rawValue
        let newest = contents.newestEntry(for: ownDevice)
        let input = RenewalRule.Input(clock: clock, fileEpoch: contents.epoch, newest: newest.map { .init(epoch: $0.epoch, notAfter: $0.notAfter) },
                                      listed: listing.map { listed in newest.map { listed.own == $0.body?.certificate } ?? false },
                                      stopped: nil)
        switch RenewalRule.decide(input) {
        case .upToDate: return .upToDate
        case .held(let hold): return try await held(hold, record: record, clock: clock)
        case .republish:
            if let bytes = newest?.body?.certificate, let certificate = try? DeviceCertificate(bytes: bytes) { try await publish(certificate) }
            return .republished
        case .issue:
            guard file.isProtected || (try? file.protect()) != nil else { throw MessagingError.primaryFileUnprotected }
            let certificate = try issue(into: &contents, now: clock.now)
            contents.prune(at: max(clock.now, clock.readings.mark, contents.mark))
            try save(contents, to: file, key: key)
            record.certificate = certificate.bytes
            record.epoch = contents.epoch
            record.logCount = contents.logCount
            // The trust counter is not carried over: only a trust decision raises the mirror's
            // (§11.3), so a store rolled back behind the file stays behind.
            let mirror = record
            try await store.write { [store] db in try store.ownUserKeyStore.store(mirror, db) }
            try await publish(certificate)
            events.publish(.linking(.certificateRenewed(notAfter: Date(timeIntervalSince1970: TimeInterval(certificate.notAfter)))))
            return .issued(notAfter: certificate.notAfter)
        }
    }

    // MARK: Steps

    /// Issues this device a certificate at the file's epoch, valid 30 days, and logs it.
    private func issue(into contents: inout PrimaryFileContents, now: Int64) throws -> DeviceCertificate {
        let certificate = try DeviceCertificate.issue(
            by: contents.userKey(), userID: WireUUID(text: device.userID.rawValue), deviceID: WireUUID(text: device.deviceID.rawValue),
            identity: device.identity.publicIdentity, epoch: contents.epoch, notAfter: UInt32(clamping: now + RenewalRule.lifetime))
        contents.append(CertificateLogEntry(deviceID: device.deviceID.rawValue, identityBlob: device.identity.publicIdentity.bytes,
                                            certificate: certificate))
        contents.mark = max(contents.mark, now)
        return certificate
    }

    /// Saves `contents`, never lowering the trust counter a trust decision raised in the file
    /// meanwhile (``raiseFileTrustCounter()``, which writes outside the issuing lock): the file
    /// on disk is read again and the save made under one process-wide gate.
    func save(_ contents: PrimaryFileContents, to file: PrimaryFile, key: SecretBytes) throws {
        do {
            try Self.fileGate.withLock { _ in
                var contents = contents
                if let onDisk = try? file.load(key: key), onDisk.fileID == contents.fileID {
                    contents.trustCounter = max(contents.trustCounter, onDisk.trustCounter)
                }
                try file.save(contents, key: key, random: random)
            }
        } catch PrimaryFileError.unprotected {
            throw MessagingError.primaryFileUnprotected
        }
    }

    /// Stores `certificate` as the one to publish and uploads the bundle (before the first
    /// bootstrap there is nothing to upload yet: the bootstrap publishes it).
    func publish(_ certificate: DeviceCertificate) async throws {
        do {
            try await keys.publish(certificate: certificate)
        } catch MessagingError.keysNotBootstrapped {
            return
        } catch is ServerError {
            return  // stored; the next upload carries it
        }
    }

    private func stop(_ reason: OwnUserKeyRecord.IssuingStop, record: inout OwnUserKeyRecord, clock: UserKeyClock) async throws -> Outcome {
        record.issuingStopped = reason
        let stopped = record
        try await store.write { [store] db in try store.ownUserKeyStore.store(stopped, db) }
        events.publish(.linking(.issuingStopped(IssuingStopReason(reason))))
        return try await held(.stopped(reason), record: record, clock: clock)
    }

    /// Reports a hold: a clock hold is surfaced, and a certificate within 7 days of its end warns.
    private func held(_ hold: RenewalRule.Hold, record: OwnUserKeyRecord, clock: UserKeyClock) async throws -> Outcome {
        if hold == .clockWentBack || hold == .clockSuspect { events.publish(.linking(.renewalHeldByClock)) }
        if let bytes = record.certificate, let certificate = try? DeviceCertificate(bytes: bytes),
           RenewalRule.shouldWarn(notAfter: certificate.notAfter, clock: clock) {
            events.publish(.linking(.certificateExpiring(notAfter: Date(timeIntervalSince1970: TimeInterval(certificate.notAfter)))))
        }
        return .held(hold)
    }

    /// Reads and raises the clock readings (§10.19), surfacing a clock gone back.
    func advanceClock() async throws -> (UserKeyClock, Bool) {
        let now = systemSeconds()
        let (readings, wentBack) = try await store.write { [store] db in
            var readings = try store.contactKeyStore.loadClock(now: now, db)
            let wentBack = UserKeyDirectory.advance(&readings, now: now)
            try store.contactKeyStore.storeClock(readings, db)
            return (readings, wentBack)
        }
        if wentBack { events.publish(.clockWentBack) }
        return (UserKeyClock(now: now, readings: readings, rolledBackAt: nil), wentBack)
    }

    func loadRecord() async throws -> OwnUserKeyRecord? {
        try await store.read { [store] db in try store.ownUserKeyStore.load(db) }
    }

    /// What our own listing shows: this device's certificate bytes, and the current
    /// certificates under our key on any device, with that device (to be found in the log).
    /// `nil` when the listing cannot be read.
    private func ownListing(userKey: [UInt8]?, clock: UserKeyClock) async -> (own: [UInt8]?, foreign: [(deviceID: String, certificate: [UInt8])])? {
        guard let bundles = try? await api.bundles(userID: device.userID), let user = try? WireUUID(text: device.userID.rawValue) else { return nil }
        var own: [UInt8]?
        var underOurKey: [(deviceID: String, certificate: [UInt8])] = []
        for json in bundles {
            guard let bundle = try? PrekeyBundle(deviceID: json.deviceID.rawValue, identityKey: json.identityKey, signedPreKey: json.signedPreKey,
                                                 signedPreKeySignature: json.signedPreKeySignature, oneTimePreKey: json.oneTimePreKey) else { continue }
            let certificate = bundle.certificate
            if json.deviceID == device.deviceID, bundle.identity == device.identity.publicIdentity { own = certificate.bytes }
            guard let verified = bundle.verifiedCertificate(forUser: user), verified.userKey.rawRepresentation == userKey,
                  clock.isCurrent(notAfter: verified.notAfter) else { continue }
            underOurKey.append((json.deviceID.rawValue, verified.bytes))
        }
        return (own, underOurKey)
    }
}

extension IssuingStopReason {
    /// The public reason of a stored stop.
    init(_ stop: OwnUserKeyRecord.IssuingStop) {
        switch stop {
        case .anotherHolder: self = .anotherHolder
        case .restoredFile: self = .restoredFile
        case .fileMissing: self = .fileMissing
        case .resetElsewhere: self = .resetElsewhere
        }
    }
}
