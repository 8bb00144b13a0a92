@_spi(StoreInternals) import E2EEKeyStore

extension KeyStore {
    /// Throws ``MessagingError/linkingRequired`` when this device is a login that must be linked
    /// before it sends anything but link messages (docs/spec/protocol.md §10.24).
    /// - Throws: that, or key store errors.
    func requireLinked() async throws {
        if try await read({ [self] db in try ownUserKeyStore.load(db)?.role }) == .unlinked { throw MessagingError.linkingRequired }
    }
}
