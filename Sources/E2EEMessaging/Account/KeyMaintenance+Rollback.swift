import E2EECrypto
import E2EEKeyStore

extension KeyMaintenance {
    /// After a rollback (docs/spec/protocol.md §3): a new signed prekey (the old one is retained as for
    /// any rotation) and `count` new one-time prekeys, stored before the whole bundle is
    /// uploaded (`POST /keys/upload` replaces the server's list, so the old ones are gone there
    /// too). Returns how many one-time prekeys are on offer.
    /// - Throws: ``ServerError``, key store errors.
    func replaceAllPrekeys(oneTimePrekeys count: Int) async throws -> Int {
        _ = try await makeSignedPrekey()
        try await generateOneTimePrekeys(count: count)
        return try await uploadFullBundle()
    }
}
