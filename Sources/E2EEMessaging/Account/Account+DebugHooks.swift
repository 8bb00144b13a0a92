#if DEBUG
import E2EECrypto

extension Account {
    /// Debug builds only (a test hook of protocol text 1.3; release builds have no such method):
    /// this device republishes its signed prekey record carrying the 104-byte certificate
    /// `bytes`, signed by its own `SIG`, and keeps publishing it across signed prekey rotations
    /// until another call replaces it (104 zero bytes: no certificate again). It is stored before
    /// the upload, so one that fails goes out with the next upload. The certificate is
    /// public; no secret leaves the device. Tests use it to publish certificates minted outside
    /// (`Scripts/interop/`, E2EECrypto's `DeviceCertificate.issue(by:userID:deviceID:identity:epoch:notAfter:)`).
    /// - Throws: E2EECrypto's `ProtocolError` when `bytes` is not a well-formed certificate
    ///   (`DeviceCertificate(bytes:)`), ``MessagingError/keysNotBootstrapped`` before the
    ///   first bootstrap, ``ServerError``, key store errors.
    public func debugPublishCertificate(_ bytes: [UInt8]) async throws {
        try await keys.publish(certificate: DeviceCertificate(bytes: bytes))
    }
}
#endif
