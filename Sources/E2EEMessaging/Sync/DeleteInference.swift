import E2EEKeyStore

/// docs/spec/sync.md guarantee 9: the reference server hard-deletes and its REST pages keep no record
/// (docs/spec/server-api.md §15), so a device away during a `message.delete` infers it. A stored
/// message inside the time range a catch-up read contiguously that the read did not return is
/// a *candidate*; still absent from a read at least ``confirmAfter`` later (rows can be briefly
/// missing before their commit), it is confirmed removed from the server, exactly as if the
/// event had come — a mark (``ServerRemovals``), never an erase: a server can leave out any row.
/// A candidate that shows up again is forgotten.
///
/// The range is `(oldest, newest]` of the read: rows tied with the oldest one may lie beyond
/// the last page, and rows newer than the newest arrived after the read began. A read that
/// stopped at its limit without reaching the mark is still contiguous over what it returned.
actor DeleteInference {
    /// Microseconds between the read that first missed a message and one that confirms it.
    let confirmAfter: Int64
    private let now: @Sendable () -> StoreTime
    /// Per channel: message id → when a read first missed it.
    private var candidates: [String: [String: Int64]] = [:]

    init(confirmAfter: Int64 = 2_000_000, now: @escaping @Sendable () -> StoreTime) {
        self.confirmAfter = confirmAfter
        self.now = now
    }

    /// Compares a contiguous read of `channelID` (`messages`, oldest → newest) with the store;
    /// returns the ids confirmed removed from the server now (the caller marks them).
    /// - Throws: key store errors.
    func confirmedDeletes(channelID: ChannelID, read messages: [ServerMessage], store: KeyStore) async throws -> [String] {
        guard let oldest = messages.first?.createdAt.microseconds, let newest = messages.last?.createdAt.microseconds, oldest < newest else {
            return []
        }
        let stored = try await store.undeletedMessageIDs(channelID: channelID.rawValue, after: StoreTime(microseconds: oldest),
                                                        through: StoreTime(microseconds: newest))
        let returned = Set(messages.map { $0.id.rawValue })
        let missing = stored.filter { !returned.contains($0) }
        let time = now().microseconds
        let earlier = candidates[channelID.rawValue] ?? [:]
        var still: [String: Int64] = [:]
        var confirmed: [String] = []
        for id in missing {
            if let first = earlier[id], time - first >= confirmAfter {
                confirmed.append(id)
            } else {
                still[id] = earlier[id] ?? time
            }
        }
        candidates[channelID.rawValue] = still.isEmpty ? nil : still
        return confirmed
    }
}
