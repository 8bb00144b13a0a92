import E2EEKeyStore
import E2EEMessaging

/// The store's own record of an outbox entry — its exact posted bytes and its counters — for
/// tests that check what went over the wire; the app sees only ``OutboxItem`` and ``SendReport``.
func outboxRecord(_ store: KeyStore, _ localID: String) async throws -> OutboxMessage? {
    try await store.outbox(states: Set(OutboxState.allCases)).first { $0.localID == localID }
}
