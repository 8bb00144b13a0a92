import E2EECrypto
import GRDB

extension KeyStore {
    /// Stores the account (replacing any previous row).
    /// - Throws: GRDB's `DatabaseError`.
    package func storeAccount(_ account: AccountRecord) async throws {
        try await handOff.queuedWrite { [self] db in try accountStore.storeAccount(account, db) }
    }

    /// The account, if saved.
    /// - Throws: ``KeyStoreError`` for a tampered row, GRDB's `DatabaseError`.
    package func loadAccount() async throws -> AccountRecord? {
        try await read { [self] db in try accountStore.loadAccount(db) }
    }

    /// Replaces the tokens (a refresh persists the new refresh token before it is used; `nil`
    /// wipes them on logout).
    /// - Throws: ``KeyStoreError/missingRecord(_:id:)`` without an account.
    package func storeTokens(access: SecretBytes?, refresh: SecretBytes?, at time: StoreTime) async throws {
        try await handOff.queuedWrite { [self] db in try accountStore.storeTokens(access: access, refresh: refresh, at: time, db) }
    }

    /// Stores the device's identity keys (once).
    /// - Throws: ``KeyStoreError/invalidTransition(_:id:from:to:)`` when keys exist.
    package func storeIdentityKeyPair(_ keys: IdentityKeyPair) async throws {
        try await handOff.queuedWrite { [self] db in try identityKeyStore.storeIdentityKeyPair(keys, db) }
    }

    /// The device's identity keys.
    /// - Throws: ``KeyStoreError`` for a tampered row, GRDB's `DatabaseError`.
    package func loadIdentityKeyPair() async throws -> IdentityKeyPair? {
        try await read { [self] db in try identityKeyStore.loadIdentityKeyPair(db) }
    }

    /// The certificate this device publishes in its signed prekey record (104 bytes; `nil`: the
    /// zero certificate), kept across signed prekey rotations (`v17`).
    /// - Throws: GRDB's `DatabaseError`.
    package func publishedCertificate() async throws -> [UInt8]? {
        try await read { [self] db in try identityKeyStore.loadPublishedCertificate(db) }
    }

    /// Replaces the certificate this device publishes (`nil`: the zero certificate again).
    /// - Throws: GRDB's `DatabaseError` for bytes that are not 104 long.
    package func storePublishedCertificate(_ certificate: [UInt8]?, at time: StoreTime) async throws {
        try await handOff.queuedWrite { [self] db in try identityKeyStore.storePublishedCertificate(certificate, at: time, db) }
    }

    /// Makes a new signed prekey current, retiring the previous one.
    /// - Throws: ``KeyStoreError/invalidTransition(_:id:from:to:)`` for an id in use.
    @_spi(StoreInternals) public func rotateSignedPrekey(_ prekey: SignedPrekey) async throws {
        try await handOff.queuedWrite { [self] db in try signedPrekeyStore.storeCurrentSignedPrekey(prekey, db) }
    }

    /// Generates and stores `count` one-time prekeys (state `.pendingUpload`) in one
    /// transaction, with ids from the persisted counter; returns the stored prekeys.
    /// - Throws: whatever `generate` throws (nothing is stored then),
    ///   ``KeyStoreError/invalidArgument(_:)`` for a negative count or exhausted ids.
    @_spi(StoreInternals) public func addOneTimePrekeys(count: Int, now: StoreTime, generate: @escaping @Sendable (UInt32) throws -> OneTimePrekeyMaterial) async throws -> [OneTimePrekey] {
        try await handOff.queuedWrite { [self] db in
            let store = oneTimePrekeyStore
            return try store.reserveIDs(count: count, db).map { id in
                let material = try generate(id)
                try store.storeOneTimePrekey(id: id, material: material, at: now, db)
                return OneTimePrekey(id: id, publicKey: material.publicKey, privateKey: material.privateKey, state: .pendingUpload, createdAt: now)
            }
        }
    }

    /// Marks prekeys published once the server accepted the upload.
    /// - Throws: GRDB's `DatabaseError`.
    @_spi(StoreInternals) public func markOneTimePrekeysPublished(ids: [UInt32]) async throws {
        try await handOff.queuedWrite { [self] db in try oneTimePrekeyStore.markPublished(ids: ids, db) }
    }

    /// Marks a one-time prekey consumed (outside a decryption commit).
    /// - Throws: ``KeyStoreError/missingRecord(_:id:)``.
    package func consumeOneTimePrekey(id: UInt32, at time: StoreTime) async throws {
        try await handOff.queuedWrite { [self] db in try oneTimePrekeyStore.consume(id: id, at: time, db) }
    }

    /// Installs a new current session with a device (archiving the previous one); returns its id.
    /// - Throws: GRDB's `DatabaseError`.
    @discardableResult
    package func installSession(userID: String, deviceID: String, state: SecretBytes, at time: StoreTime) async throws -> String {
        try await handOff.queuedWrite { [self] db in try sessionStore.installSession(userID: userID, deviceID: deviceID, state: state, at: time, db) }
    }

    /// Restarts the ratchet with a device (docs/spec/protocol.md §3.17): installs `state` as
    /// current, archiving the previous session, and records the restart at `time` (answering the
    /// request), in one transaction; returns the new session's id.
    /// - Throws: GRDB's `DatabaseError`.
    @discardableResult
    package func restartSession(userID: String, deviceID: String, state: SecretBytes, at time: StoreTime) async throws -> String {
        try await handOff.queuedWrite { [self] db in try sessionStore.restartSession(userID: userID, deviceID: deviceID, state: state, at: time, db) }
    }

    /// Makes a new own sender key current for its channel.
    /// - Throws: GRDB's `DatabaseError` for a key id already used in the channel.
    package func storeNewSenderKey(_ key: OwnSenderKey) async throws {
        try await handOff.queuedWrite { [self] db in try ownSenderKeyStore.storeNewSenderKey(key, db) }
    }

    /// Pins an identity on first use, confirms it, or records a change (keeping the old pin).
    /// - Throws: GRDB's `DatabaseError`, ``KeyStoreError/corruptColumn(table:column:)``.
    package func recordIdentity(_ claim: RemoteIdentityClaim, at time: StoreTime = .now()) async throws -> IdentityRecordResult {
        try await handOff.queuedWrite { db in
            try RemoteIdentityStore().recordIdentity(userID: claim.userID, deviceID: claim.deviceID, identityBlob: claim.identityBlob, at: time, db)
        }
    }

    /// Maintenance in one transaction: wipes one-time prekeys consumed before `consumedBefore`
    /// and receiving sender-key states not advanced since `senderKeysIdleSince`; returns the
    /// numbers removed.
    /// - Throws: GRDB's `DatabaseError`.
    package func wipeExpiredKeys(consumedBefore: StoreTime, senderKeysIdleSince: StoreTime) async throws -> (oneTimePrekeys: Int, senderKeys: Int) {
        try await handOff.queuedWrite { [self] db in
            (try oneTimePrekeyStore.removeConsumed(before: consumedBefore, db),
             try receiverSenderKeyStore.removeReceiverSenderKeys(notUpdatedSince: senderKeysIdleSince, db))
        }
    }
}
