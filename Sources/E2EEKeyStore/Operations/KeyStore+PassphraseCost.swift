import E2EECrypto

extension KeyStore {
    /// The Argon2id cost this store's passphrase key was derived at (`nil` for a store opened
    /// with raw key bytes): the tool derives the primary file's key at the same cost, so the
    /// file is no cheaper to guess than the store beside it.
    /// - Throws: GRDB's `DatabaseError`, ``KeyStoreError/notAKeyStore``.
    package func passphraseParameters() async throws -> Argon2id.Parameters? {
        try await read { db in
            guard case .store(let metadata) = try StoreMetadata.inspect(db) else { return nil }
            return metadata.kdfParameters
        }
    }
}
