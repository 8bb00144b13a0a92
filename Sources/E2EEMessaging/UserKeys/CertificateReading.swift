/// What one listed device's signed prekey record says about its certificate, once the record's
/// own checks have run (docs/spec/protocol.md §10.3). Only ``certificate(key:epoch:notAfter:)``
/// is evidence of a user key; whether it is *current* depends on the clock (``UserKeyRule``).
enum CertificateReading: Sendable, Equatable {
    /// A zero certificate: the device carries no user key.
    case none
    /// A certificate whose `cert_sig` does not verify for this user, device and identity blob:
    /// the device is uncertified, and an unlinked device of a user with a key (reason `invalid`).
    case unverified
    /// A record §10.3 refuses (wrong length or version, a bad user key or epoch, a bad `SIG`
    /// signature): for a user with a pinned key an unlinked device, skipped and surfaced.
    case refused
    /// A certificate whose `cert_sig` verifies under `key` (32 bytes) for this device.
    case certificate(key: [UInt8], epoch: UInt32, notAfter: UInt32)

    /// The certified user key, if any.
    var key: [UInt8]? {
        if case .certificate(let key, _, _) = self { return key }
        return nil
    }
}

/// One device in a user's listing, as ``UserKeyRule`` judges it.
struct ListedCertificate: Sendable, Equatable {
    /// The device.
    var deviceID: String
    /// Its certificate.
    var reading: CertificateReading
    /// The certificate's 104 bytes when ``reading`` is a verified certificate (kept so that a
    /// primary can send it in a transfer, docs/spec/protocol.md §11.3).
    var bytes: [UInt8]? = nil
}
