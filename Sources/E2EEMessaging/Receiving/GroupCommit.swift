import E2EEKeyStore

/// Commits the chunks of a batch's lanes. A chunk handed in while no commit runs is committed
/// at once; chunks handed in while one runs are committed together in the next transaction
/// (``KeyStore/storeReceiveBatch(_:)``: all of them or none). A lane thus never waits for
/// another lane's decryption, only for the commit in progress — which holds the store's single
/// writer anyway — and under load a batch needs fewer transactions (each has a fixed cost: its
/// WAL frames, a sync, checkpoints).
///
/// The lanes of one batch handle disjoint devices, so their chunks never touch the same
/// session or sender key; a failed commit is reported to every lane whose chunk was in it.
actor GroupCommit {
    private struct Waiting {
        let writes: [ReceiveWrite]
        let continuation: CheckedContinuation<[ReceiveWriteResult], any Error>
    }

    private let store: KeyStore
    private var waiting: [Waiting] = []
    private var committing = false

    init(store: KeyStore) { self.store = store }

    /// Commits `writes` (with whatever else is waiting by then); returns what happened to each.
    /// - Throws: the store's error when the transaction holding them failed (nothing of it is stored).
    func commit(_ writes: [ReceiveWrite]) async throws -> [ReceiveWriteResult] {
        guard !writes.isEmpty else { return [] }
        return try await withCheckedThrowingContinuation { continuation in
            waiting.append(Waiting(writes: writes, continuation: continuation))
            guard !committing else { return }
            committing = true
            Task { await drain() }
        }
    }

    /// Commits what is waiting, one transaction per round, until nothing is.
    private func drain() async {
        while !waiting.isEmpty {
            let round = waiting
            waiting.removeAll()
            do {
                let results = try await store.storeReceiveBatch(round.flatMap(\.writes))
                var offset = 0
                for entry in round {
                    entry.continuation.resume(returning: Array(results[offset..<offset + entry.writes.count]))
                    offset += entry.writes.count
                }
            } catch {
                for entry in round { entry.continuation.resume(throwing: error) }
            }
        }
        committing = false
    }
}
