import E2EECrypto
@_spi(StoreInternals) import E2EEKeyStore
import Foundation

extension Account {
    /// A linked device whose store is behind its own listing — a store restored from a backup
    /// made before it adopted a `recert` — first adopts the certificate its listed record carries
    /// (docs/spec/protocol.md §10.13, "Adopting a certificate"), so that its next upload does not
    /// put the older certificate back and unlink it at contacts. The listed certificate is taken
    /// under the same rule as a recert's: for this (user, device, blob), under the pinned key,
    /// current, at an epoch no lower than the stored one and ending later. The listing names no
    /// primary: a certificate is public. Run at start-up; a listing that cannot be read changes
    /// nothing.
    func adoptListedCertificate() async {
        let store = self.store
        guard var record = try? await store.read({ db in try store.ownUserKeyStore.load(db) }), record.role == .linked,
              let userKey = record.userKey, let subject = try? adoptionSubject(),
              let listed = try? await api.bundle(deviceID: deviceID),
              let bundle = try? PrekeyBundle(deviceID: listed.deviceID.rawValue, identityKey: listed.identityKey, signedPreKey: listed.signedPreKey,
                                             signedPreKeySignature: listed.signedPreKeySignature, oneTimePreKey: listed.oneTimePreKey),
              bundle.identity == device.identity.publicIdentity else { return }
        let certificate = bundle.certificate
        let storedCertificate = record.certificate.flatMap { try? DeviceCertificate(bytes: $0) }
        let stored = CertificateAdoption.Stored(userKey: userKey, epoch: record.epoch, notAfter: storedCertificate?.notAfter)
        guard let (clock, _) = try? await primaryIssuer.advanceClock(),
              CertificateAdoption.adopts(certificate, subject: subject, stored: stored, clock: clock) else { return }
        record.certificate = certificate.bytes
        record.epoch = certificate.epoch
        let updated = record, time = configuration.now()
        do {
            try await store.write { db in
                try store.ownUserKeyStore.store(updated, db)
                try store.identityKeyStore.storePublishedCertificate(certificate.bytes, at: time, db)
            }
        } catch {
            return
        }
        await directory.invalidate()
        broadcaster.publish(.linking(.certificateRenewed(notAfter: Date(timeIntervalSince1970: TimeInterval(certificate.notAfter)))))
    }
}
