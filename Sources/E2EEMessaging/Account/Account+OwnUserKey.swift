import E2EECrypto
import Foundation
@_spi(StoreInternals) import E2EEKeyStore

/// Our own user's key (docs/spec/protocol.md §10.12–§10.13, text 1.3 part 2): creating it on
/// this device, which becomes the primary, and renewing this device's own certificate.
extension Account {
    /// The lock every issuing step of this account runs under (creation and renewal never interleave).
    static let issuingLock = "own-user-key"

    var primaryIssuer: PrimaryIssuer {
        PrimaryIssuer(store: store, keychain: configuration.primaryFileKeychain, api: api, device: device, keys: keys, events: broadcaster,
                      random: AnyRandomSource(base: configuration.random), systemSeconds: configuration.userKeyClock)
    }

    /// Creates our user key on this device, which becomes the primary at epoch 1: the primary
    /// file is written beside the store (sealed under the key ``AccountConfiguration/primaryFileKeychain``
    /// gives, excluded from backups), this device's certificate (valid 30 days) is logged in it,
    /// then published in its signed prekey record — the same signed prekey and one-time prekeys,
    /// republished. Own devices trusted until now stay recipients as *legacy* devices for 30 days.
    /// Before the first ``bootstrapKeys(oneTimePrekeys:)`` the certificate goes out with it.
    /// - Throws: ``MessagingError/userKeyExists`` (this device holds the key already),
    ///   ``MessagingError/notPrimary`` (another device does), ``MessagingError/primaryFileUnprotected``
    ///   (no keychain, a store in memory, no backup exclusion possible: nothing created),
    ///   ``MessagingError/clockNotConfirmed``, `PrimaryFileError` (a file left beside the store
    ///   that does not open), key store errors. A server that cannot be reached leaves the
    ///   upload for the next one.
    public func createUserKey() async throws {
        let issuer = primaryIssuer
        _ = try await locks.withLock(Self.issuingLock) { try await issuer.create() }
        await directory.invalidate()
    }

    /// Our own user key as this device stands under it (no network).
    /// - Throws: key store errors.
    public func ownUserKey() async throws -> OwnUserKeyStatus {
        let (record, legacy) = try await store.read { [store] db in
            (try store.ownUserKeyStore.load(db), try store.ownUserKeyStore.loadLegacyDevices(db))
        }
        guard let record else {
            return OwnUserKeyStatus(role: .noKey, key: nil, epoch: nil, notAfter: nil, primary: nil, legacyDevices: [], issuingStopped: nil)
        }
        let certificate = record.certificate.flatMap { try? DeviceCertificate(bytes: $0) }
        let role: OwnUserKeyStatus.Role = switch record.role {
        case .primary: .primary
        case .linked: .linked
        case .unlinked: .unlinked
        }
        var status = OwnUserKeyStatus(
            role: role, key: record.userKey.flatMap(UserKey.init(publicKey:)), epoch: certificate?.epoch,
            notAfter: certificate.map { Date(timeIntervalSince1970: TimeInterval($0.notAfter)) },
            primary: record.primaryDeviceID.map { DeviceID(stored: $0) },
            legacyDevices: legacy.map { .init(deviceID: DeviceID(stored: $0.deviceID), lapsesAt: Date(timeIntervalSince1970: TimeInterval($0.lapsesAt))) },
            issuingStopped: record.issuingStopped.map(IssuingStopReason.init))
        if record.role == .primary { status.trustStateUnconfirmed = await primaryIssuer.trustCounters()?.storeBehind ?? false }
        return status
    }

    /// Runs the primary's renewal now (docs/spec/protocol.md §10.13; it also runs at start-up,
    /// with every catch-up and so on reconnect, and daily once connected): issues this device
    /// a new certificate when its own is not current, below the file's epoch, or listed with
    /// under 23 days left, and republishes one not listed yet; then does the same for every
    /// device it keeps, each new certificate sent as a `recert` (after a removal left in
    /// progress is carried out). Returns the status after it.
    /// - Throws: ``MessagingError/notPrimary``, ``MessagingError/issuingStopped(_:)`` (issuing
    ///   stopped, now or before), ``MessagingError/clockNotConfirmed`` (a renewal was due),
    ///   ``MessagingError/primaryFileUnprotected``, `PrimaryFileError`, key store errors.
    @discardableResult
    public func renewOwnCertificate() async throws -> OwnUserKeyStatus {
        switch try await runRenewal() {
        case .notPrimary: throw MessagingError.notPrimary
        case .held(.stopped(let reason)): throw MessagingError.issuingStopped(IssuingStopReason(reason))
        case .held(.clockWentBack), .held(.clockSuspect): throw MessagingError.clockNotConfirmed
        case .upToDate, .issued, .republished: return try await ownUserKey()
        }
    }

    /// The renewal as start-up and every catch-up run it (a failure is the caller's to record).
    /// - Throws: as ``renewOwnCertificate()``, but a hold or a device that is not the primary
    ///   is no error here.
    func renewOwnCertificateIfDue() async throws {
        _ = try await runRenewal()
    }

    /// Starts, once per account, the renewal that runs every ``AccountConfiguration/ownRenewalInterval``
    /// while the account lives (from its first ``connect(using:policy:)``); ``shutdown()`` ends
    /// it. A run that fails is left to the next one, or to the next catch-up.
    func startRenewalTimer() {
        guard !renewalTimerStarted else { return }
        renewalTimerStarted = true
        let interval = configuration.ownRenewalInterval
        backgroundWork.run { [weak self] in
            while !Task.isCancelled {
                do { try await Task.sleep(for: interval) } catch { return }
                guard let self else { return }
                try? await self.renewOwnCertificateIfDue()
            }
        }
    }

    /// Creates the key at registration when ``AccountConfiguration/linking`` is on.
    func createUserKeyAtRegistration() async throws {
        guard configuration.linking == .on else { return }
        try await createUserKey()
    }

    private func runRenewal() async throws -> PrimaryIssuer.Outcome {
        let issuer = primaryIssuer
        let outcome = try await locks.withLock(Self.issuingLock) { try await issuer.renew() }
        if case .issued = outcome { await directory.invalidate() }
        switch outcome {
        case .notPrimary:
            await warnIfLinkedCertificateExpiring()  // a linked device warns at under 7 days left
        case .held(.stopped):
            break
        case .upToDate, .issued, .republished, .held:
            // The devices it keeps (a removal left in progress first): a failure is the next run's.
            try? await renewKeptDevices()
        }
        return outcome
    }
}
