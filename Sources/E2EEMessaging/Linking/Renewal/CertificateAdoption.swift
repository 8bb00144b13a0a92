import E2EECrypto

/// "Adopting a certificate" (docs/spec/protocol.md §10.13), as pure functions: whether a linked
/// device takes a certificate a `recert` (or its listed record) carries, and whether it takes a
/// recert's sender as its primary. Certificates are public — anyone can replay one — so the
/// certificate alone never names a primary: only `primary_sig`, made with the user key for
/// (sender, this device), does.
enum CertificateAdoption {
    /// What this device stored about itself.
    struct Stored: Sendable, Equatable {
        /// Our user's pinned key (32 bytes).
        var userKey: [UInt8]
        /// The epoch of the stored certificate.
        var epoch: UInt32
        /// The stored certificate's `not_after` (nil: none).
        var notAfter: UInt32?
    }

    /// This device as a certificate must name it.
    struct Subject: Sendable, Equatable {
        var userID: WireUUID
        var deviceID: WireUUID
        var identity: IdentityBlob
    }

    /// Whether `certificate` is for `subject` under the pinned key: it verifies for our own
    /// (user, device, blob) and carries `stored.userKey`.
    static func isOurs(_ certificate: DeviceCertificate, subject: Subject, stored: Stored) -> Bool {
        !certificate.isZero && certificate.userKey.rawRepresentation == stored.userKey
            && certificate.verifies(userID: subject.userID, deviceID: subject.deviceID, identity: subject.identity)
    }

    /// Whether the device adopts `certificate`: ours under the pinned key, current by `clock`,
    /// at an epoch no lower than the stored one, and ending later than the stored certificate
    /// (or the stored one is no longer current). A higher epoch is adopted even at the same
    /// `not_after`: a removal issued within the second of the stored certificate still moves the
    /// device to the epoch contacts now require.
    static func adopts(_ certificate: DeviceCertificate, subject: Subject, stored: Stored, clock: UserKeyClock) -> Bool {
        guard isOurs(certificate, subject: subject, stored: stored), clock.isCurrent(notAfter: certificate.notAfter),
              certificate.epoch >= stored.epoch else { return false }
        guard let storedNotAfter = stored.notAfter, clock.isCurrent(notAfter: storedNotAfter) else { return true }
        return certificate.notAfter > storedNotAfter || (certificate.epoch > stored.epoch && certificate.notAfter == storedNotAfter)
    }

    /// Whether the device takes `sender` as its primary: the recert's certificate is ours under
    /// the pinned key and `signature` verifies under that key for (sender, this device) and
    /// the certificate's epoch and `not_after`.
    static func takesAsPrimary(sender: WireUUID, signature: [UInt8], certificate: DeviceCertificate, subject: Subject,
                               stored: Stored) -> Bool {
        guard isOurs(certificate, subject: subject, stored: stored),
              let pinned = try? Ed25519.PublicKey(rawRepresentation: stored.userKey) else { return false }
        return PrimarySignature.verifies(signature, userKey: pinned, userID: subject.userID, senderDevice: sender,
                                         recipientDevice: subject.deviceID, epoch: certificate.epoch, notAfter: certificate.notAfter)
    }
}
