import GRDB

extension KeyStore {
    /// Up to `limit` messages of a channel strictly before `cursor` (the newest when nil),
    /// oldest → newest, plaintexts opened. Only `message` rows: the hidden `control` and
    /// `duplicate` rows of the receive side are not messages.
    /// - Throws: ``KeyStoreError`` for a tampered row, GRDB's `DatabaseError`.
    @_spi(StoreInternals) public func timelinePage(channelID: String, before cursor: TimelineCursor? = nil, limit: Int = 50) async throws -> [TimelineMessage] {
        try await read { [self] db in try timelineStore.loadPage(channelID: channelID, before: cursor, limit: limit, db) }
    }

    /// One timeline message by server id.
    /// - Throws: ``KeyStoreError`` for a tampered row, GRDB's `DatabaseError`.
    package func message(id: String) async throws -> TimelineMessage? {
        try await read { [self] db in try timelineStore.loadMessage(id: id, db) }
    }

    /// How many messages (`message` rows) a channel holds (in `state`, when given).
    /// - Throws: GRDB's `DatabaseError`.
    @_spi(StoreInternals) public func messageCount(channelID: String, state: TimelineState? = nil) async throws -> Int {
        try await read { [self] db in try timelineStore.countMessages(channelID: channelID, state: state, db) }
    }

    /// How many ciphertexts wait for keys.
    /// - Throws: GRDB's `DatabaseError`.
    @_spi(StoreInternals) public func pendingCount() async throws -> Int {
        try await read { db in try PendingCiphertextStore().countPending(db) }
    }

    /// How many one-time prekeys are in `state`.
    /// - Throws: GRDB's `DatabaseError`.
    package func oneTimePrekeyCount(state: OneTimePrekeyState) async throws -> Int {
        try await read { [self] db in try oneTimePrekeyStore.countOneTimePrekeys(state: state, db) }
    }

    /// Outbox messages in `states`, per channel in sending order.
    /// - Throws: ``KeyStoreError`` for a tampered row, GRDB's `DatabaseError`.
    package func outbox(states: Set<OutboxState> = [.queued, .sending, .failed]) async throws -> [OutboxMessage] {
        try await read { [self] db in try outboxStore.loadOutbox(states: states, db) }
    }

    /// The outbox entries of `channelID` whose content hashes to `contentHash`, in any state.
    /// - Throws: ``KeyStoreError`` for a tampered row, GRDB's `DatabaseError`.
    package func outbox(channelID: String, contentHash: [UInt8]) async throws -> [OutboxMessage] {
        try await read { [self] db in try outboxStore.loadOutbox(channelID: channelID, contentHash: contentHash, db) }
    }

    /// Every retained signed prekey, oldest first (for rotation and wiping).
    /// - Throws: ``KeyStoreError`` for a tampered row, GRDB's `DatabaseError`.
    package func signedPrekeys() async throws -> [SignedPrekey] {
        try await read { [self] db in try signedPrekeyStore.loadSignedPrekeys(db) }
    }

    /// The channel's sync cursor.
    /// - Throws: ``KeyStoreError/corruptColumn(table:column:)``, GRDB's `DatabaseError`.
    package func syncCursor(channelID: String) async throws -> SyncCursor? {
        try await read { db in try SyncCursorStore().loadCursor(channelID: channelID, db) }
    }

    /// Saves a channel's sync cursor.
    /// - Throws: GRDB's `DatabaseError`.
    package func storeSyncCursor(_ cursor: SyncCursor) async throws {
        try await handOff.queuedWrite { db in try SyncCursorStore().storeCursor(cursor, db) }
    }

    /// SQLite's `PRAGMA integrity_check` result lines (`["ok"]` for a sound file).
    /// - Throws: GRDB's `DatabaseError`.
    package func integrityCheck() async throws -> [String] {
        try await read { db in try String.fetchAll(db, sql: "PRAGMA integrity_check") }
    }
}

extension KeyStore {
    /// Copies the WAL into the main file and truncates it (for instance when the app goes to
    /// the background); committed data is durable either way.
    /// - Throws: GRDB's `DatabaseError` (for instance `SQLITE_BUSY` while readers hold snapshots).
    @_spi(StoreInternals) public func checkpoint() async throws {
        try await handOff.queued { db in _ = try db.checkpoint(.truncate) }
    }
}
