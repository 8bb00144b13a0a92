import E2EEKeyStore

extension Account {
    /// Writes a device made outside any server into a fresh `store` — its account row (server,
    /// user and device, no tokens) and its identity keys, as register or login followed by the
    /// first ``open(server:store:configuration:)`` would leave them — so that
    /// ``open(server:store:configuration:)`` opens it. Not API: it exists for the ingest
    /// benchmark and the fuzzers, which make the device's keys themselves (messages were
    /// encrypted to them before the store existed) and install its prekeys with the store's
    /// own calls; an app registers or logs in.
    /// - Throws: ``MessagingError/storeBelongsToAnotherDevice`` when `store` already holds an
    ///   account or identity keys, key store errors.
    @_spi(Benchmarks) public static func install(_ device: LocalDevice, serverURL: String, into store: KeyStore, at time: StoreTime) async throws {
        try await requireFreshStore(store)
        try await store.storeIdentityKeyPair(StoredKeyConversions.record(device.identity, createdAt: time))
        try await store.storeAccount(AccountRecord(serverURL: serverURL, userID: device.userID.rawValue, deviceID: device.deviceID.rawValue,
                                                   accessToken: nil, refreshToken: nil, updatedAt: time))
    }
}
