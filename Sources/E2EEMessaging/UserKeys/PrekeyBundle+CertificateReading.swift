import E2EECrypto

extension PrekeyBundle {
    /// What the bundle's record says about its certificate for `userID`, the user whose listing
    /// held it (docs/spec/protocol.md §10.3): a zero certificate, one whose `cert_sig` does not
    /// verify for this user, device and identity blob, or a verified one.
    func certificateReading(forUser userID: UserID) -> CertificateReading {
        let certificate = certificate
        if certificate.isZero { return .none }
        guard let user = try? WireUUID(text: userID.rawValue), let verified = verifiedCertificate(forUser: user) else { return .unverified }
        return .certificate(key: verified.userKey.rawRepresentation, epoch: verified.epoch, notAfter: verified.notAfter)
    }
}
