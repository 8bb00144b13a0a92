import E2EECrypto
@_spi(StoreInternals) import E2EEKeyStore

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
        guard var adoption = await linkedCertificateAdoption(),
              let listed = try? await api.bundle(deviceID: deviceID),
              let bundle = try? PrekeyBundle(deviceID: listed.deviceID.rawValue, identityKey: listed.identityKey, signedPreKey: listed.signedPreKey,
                                             signedPreKeySignature: listed.signedPreKeySignature, oneTimePreKey: listed.oneTimePreKey),
              bundle.identity == device.identity.publicIdentity else { return }
        let certificate = bundle.certificate
        guard adoption.adopts(certificate) else { return }
        adoption.record.certificate = certificate.bytes
        adoption.record.epoch = certificate.epoch
        let store = self.store, updated = adoption.record, time = configuration.now()
        do {
            try await store.write { db in
                try store.ownUserKeyStore.store(updated, db)
                try store.identityKeyStore.storePublishedCertificate(certificate.bytes, at: time, db)
            }
        } catch {
            return
        }
        await adopted(certificate)
    }
}
