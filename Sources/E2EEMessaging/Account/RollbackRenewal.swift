/// The one renewal of keys after a detected rollback (docs/spec/protocol.md §3.12) running at a
/// time: sends in several channels can all find the store marked rolled back at once, and each
/// renewal replaces every prekey and retires every sender key, so the later ones wait for the
/// running one instead of renewing again.
actor RollbackRenewal {
    private var renewal: Task<Void, any Error>?

    /// Runs `renew` unless a renewal is already running, in which case it waits for that one.
    /// - Throws: what `renew` throws.
    func renewOnce(_ renew: @escaping @Sendable () async throws -> Void) async throws {
        if let renewal { return try await renewal.value }
        let task = Task { try await renew() }
        renewal = task
        defer { renewal = nil }
        try await task.value
    }
}
