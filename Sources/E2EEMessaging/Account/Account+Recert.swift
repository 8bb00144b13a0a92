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
              let sender = try? WireUUID(text: message.senderDeviceID.rawValue),
              var adoption = await linkedCertificateAdoption() else { return }
        let adopt = adoption.adopts(certificate)
        let primary = CertificateAdoption.takesAsPrimary(sender: sender, signature: signature, certificate: certificate,
                                                         subject: adoption.subject, stored: adoption.stored)
        guard adopt || (primary && adoption.record.primaryDeviceID != sender.text) else { return }
        if adopt {
            adoption.record.certificate = certificate.bytes
            adoption.record.epoch = certificate.epoch
        }
        if primary { adoption.record.primaryDeviceID = sender.text }
        let store = self.store, updated = adoption.record
        do {
            try await store.write { db in try store.ownUserKeyStore.store(updated, db) }
        } catch {
            return
        }
        guard adopt else { return }
        try? await primaryIssuer.publish(certificate)
        await adopted(certificate)
    }

    /// What deciding on a certificate for this linked device needs (§10.13 "Adopting a
    /// certificate"): its stored record, the subject, what the store holds, and the clock; nil on
    /// a device that is not linked, or when the record or the clock cannot be read.
    func linkedCertificateAdoption() async -> LinkedCertificateAdoption? {
        let store = self.store
        guard let record = try? await store.read({ db in try store.ownUserKeyStore.load(db) }), record.role == .linked,
              let userKey = record.userKey, let subject = try? adoptionSubject(),
              let (clock, _) = try? await primaryIssuer.advanceClock() else { return nil }
        let storedCertificate = record.certificate.flatMap { try? DeviceCertificate(bytes: $0) }
        let stored = CertificateAdoption.Stored(userKey: userKey, epoch: record.epoch, notAfter: storedCertificate?.notAfter)
        return LinkedCertificateAdoption(record: record, subject: subject, stored: stored, clock: clock)
    }

    /// A certificate this linked device adopted and stored: contacts' view of our devices is read
    /// again, and the app is told.
    func adopted(_ certificate: DeviceCertificate) async {
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

/// A linked device's view when it decides whether to adopt a certificate (a recert's, or the one
/// its own listing carries): see ``Account/linkedCertificateAdoption()``.
struct LinkedCertificateAdoption {
    /// The stored record, changed by the caller before it is stored again.
    var record: OwnUserKeyRecord
    let subject: CertificateAdoption.Subject
    let stored: CertificateAdoption.Stored
    let clock: UserKeyClock

    /// Whether `certificate` is adopted under the rules of "Adopting a certificate".
    func adopts(_ certificate: DeviceCertificate) -> Bool {
        CertificateAdoption.adopts(certificate, subject: subject, stored: stored, clock: clock)
    }
}
