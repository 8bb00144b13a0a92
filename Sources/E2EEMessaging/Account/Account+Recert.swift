import E2EECrypto
@_spi(StoreInternals) import E2EEKeyStore
import Foundation

extension Account {
    /// Listens, for the account's life, to the link messages it opens and acts on each `recert`
    /// (docs/spec/protocol.md §10.13 "Adopting a certificate"). Subscribed when the account is
    /// made, before anything is received, so none is missed.
    func startRecertListener() {
        let messages = linkMessages()
        backgroundWork.run { [weak self] in
            for await message in messages {
                guard message.channel == .devices, case .recert = message.plaintext else { continue }
                guard let self else { return }
                await self.received(recert: message)
            }
        }
    }

    /// A `recert` from an own device: on a linked device, the certificate is adopted under the
    /// rules of "Adopting a certificate" and this device's record republished carrying it; the
    /// sender becomes this device's primary only when `primary_sig` verifies for (sender, this
    /// device) under the pinned key — a certificate alone, being public, names no primary.
    func received(recert message: OpenedLinkMessage) async {
        guard case .recert(let certificate, let signature) = message.plaintext,
              let sender = try? WireUUID(text: message.senderDeviceID.rawValue) else { return }
        let store = self.store
        guard var record = try? await store.read({ db in try store.ownUserKeyStore.load(db) }), record.role == .linked,
              let userKey = record.userKey, let subject = try? adoptionSubject() else { return }
        let storedCertificate = record.certificate.flatMap { try? DeviceCertificate(bytes: $0) }
        let stored = CertificateAdoption.Stored(userKey: userKey, epoch: record.epoch, notAfter: storedCertificate?.notAfter)
        guard let advanced = try? await primaryIssuer.advanceClock() else { return }
        let clock = advanced.0
        let adopt = CertificateAdoption.adopts(certificate, subject: subject, stored: stored, clock: clock)
        let primary = CertificateAdoption.takesAsPrimary(sender: sender, signature: signature, certificate: certificate, subject: subject, stored: stored)
        guard adopt || (primary && record.primaryDeviceID != sender.text) else { return }
        if adopt {
            record.certificate = certificate.bytes
            record.epoch = certificate.epoch
        }
        if primary { record.primaryDeviceID = sender.text }
        let updated = record
        do {
            try await store.write { db in try store.ownUserKeyStore.store(updated, db) }
        } catch {
            return
        }
        guard adopt else { return }
        try? await primaryIssuer.publish(certificate)
        await directory.invalidate()
        broadcaster.publish(.linking(.certificateRenewed(notAfter: Date(timeIntervalSince1970: TimeInterval(certificate.notAfter)))))
    }

    /// On a linked device (§10.13): warns ``LinkEvent/certificateExpiring(notAfter:)`` when its
    /// certificate has under 7 days left by the later of the clock and the mark (the primary
    /// must come online). Runs with every renewal: start-up, catch-up, the daily timer.
    func warnIfLinkedCertificateExpiring() async {
        let store = self.store
        guard let record = try? await store.read({ db in try store.ownUserKeyStore.load(db) }), record.role == .linked,
              let bytes = record.certificate, let certificate = try? DeviceCertificate(bytes: bytes),
              let advanced = try? await primaryIssuer.advanceClock() else { return }
        guard RenewalRule.shouldWarn(notAfter: certificate.notAfter, clock: advanced.0) else { return }
        broadcaster.publish(.linking(.certificateExpiring(notAfter: Date(timeIntervalSince1970: TimeInterval(certificate.notAfter)))))
    }

    /// This device as a certificate for it must name it.
    func adoptionSubject() throws -> CertificateAdoption.Subject {
        CertificateAdoption.Subject(userID: try WireUUID(text: userID.rawValue), deviceID: try WireUUID(text: deviceID.rawValue),
                                    identity: device.identity.publicIdentity)
    }
}
