import E2EECrypto
@_spi(StoreInternals) import E2EEKeyStore
import Foundation

extension Account {
    /// How often an unlisted recert's stored envelope is posted again (a day).
    static let recertResendInterval: Int64 = 86_400

    /// The primary's renewal of the devices it keeps (docs/spec/protocol.md §10.13), as every
    /// renewal runs it (start-up, catch-up, the daily timer) and when a device becomes kept: a
    /// removal left in progress is carried out first; then each kept device due is issued a
    /// new certificate (logged before it leaves) sent as a `recert` over their ratchet through
    /// the outbox, and one current but not listed yet is sent its recert again, at most daily.
    /// - Throws: ``ServerError`` (a removal could not go on), `PrimaryFileError`, key store errors;
    ///   a recert that cannot be queued is left to the next run.
    func renewKeptDevices() async throws {
        let issuer = primaryIssuer
        guard let record = try await issuer.loadRecord(), record.role == .primary else { return }
        if issuer.removalInProgress() != nil { try await resumeRemoval() }
        let orders = try await locks.withLock(Self.issuingLock) { try await issuer.renewKept() }
        guard !orders.isEmpty, let channel = try await devicesChannel(create: true) else { return }
        for order in orders { try? await send(order, in: channel) }
    }

    /// ``renewKeptDevices()`` where a failure is left to the next run (a device just kept).
    func renewKeptDevicesNow() async {
        try? await renewKeptDevices()
    }

    /// Posts `order` to its device: a recert just issued (or one whose envelope the store does
    /// not hold) is encrypted and its envelope recorded in the store; an unlisted one already
    /// posted goes again as the same bytes, at most daily — across restarts, so a restarted
    /// primary moves no ratchet for a recert it already sent.
    /// - Throws: ``MessagingError/unknownRecipient(deviceID:)``, ``ServerError``, key store errors.
    func send(_ order: RecertOrder, in channel: ChannelID) async throws {
        let device = order.deviceID.text, digest = SHA256.hash(order.certificate.bytes), now = configuration.userKeyClock()
        if order.reason == .unlisted, var posted = try await store.postedRecert(to: device),
           ConstantTime.equals(posted.certificateDigest, digest) {
            guard now - posted.postedAt >= Self.recertResendInterval else { return }
            try await resendLinkEnvelope(posted.envelope, in: channel)
            posted.postedAt = now
            try await store.recordPostedRecert(posted)
            return
        }
        let sent = try await sendLinkMessage(order.plaintext, to: DeviceID(device), in: channel)
        try await store.recordPostedRecert(PostedRecert(deviceID: device, certificateDigest: digest, envelope: sent.content, postedAt: now))
    }
}
