import E2EECrypto

extension Account {
    /// ``PrimaryIssuer/issueGrantCertificate(for:)`` under the issuing lock. Every change of the
    /// primary file is a read, a change and a save; a grant logged while a renewal, a removal or a
    /// reset saves the file would lose one of the two changes — a grant missing from the log
    /// stops issuing at the next renewal (§10.12, `anotherHolder`), a lost renewal leaves a
    /// device to expire. The ceremony's saves therefore queue behind the others, as theirs do.
    /// - Throws: as ``PrimaryIssuer/issueGrantCertificate(for:)``.
    func issueGrantCertificate(for party: LinkParty) async throws -> DeviceCertificate {
        let issuer = primaryIssuer
        return try await locks.withLock(Self.issuingLock) { try await issuer.issueGrantCertificate(for: party) }
    }

    /// ``PrimaryIssuer/keep(_:)`` under the issuing lock, for the reason
    /// ``issueGrantCertificate(for:)`` gives. Returns whether the device is kept.
    /// - Throws: as ``PrimaryIssuer/keep(_:)``.
    func keepGrantedDevice(_ deviceID: WireUUID) async throws -> Bool {
        let issuer = primaryIssuer
        return try await locks.withLock(Self.issuingLock) { try await issuer.keep(deviceID) }
    }
}
