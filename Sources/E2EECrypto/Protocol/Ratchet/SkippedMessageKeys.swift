/// Message keys of skipped messages for one ratchet state, in insertion order, at most
/// ``ProtocolLimits/maxStoredSkippedKeysPerState`` (the oldest inserted are dropped first).
struct SkippedMessageKeys: Sendable {
    struct Entry: Sendable {
        /// The remote ratchet key of the chain the key belongs to.
        let ratchetKey: X25519.PublicKey
        /// The message index in that chain.
        let counter: UInt32
        /// The message key (`mk`, before the per-message HKDF).
        let messageKey: SecretBytes
    }

    /// Oldest first.
    private(set) var entries: [Entry] = []

    init() {}

    init(entries: [Entry]) {
        self.entries = entries
    }

    var count: Int { entries.count }

    /// Removes and returns the key for (`ratchetKey`, `counter`), if stored.
    mutating func take(ratchetKey: X25519.PublicKey, counter: UInt32) -> SecretBytes? {
        guard let index = entries.firstIndex(where: { $0.counter == counter && $0.ratchetKey == ratchetKey }) else { return nil }
        return entries.remove(at: index).messageKey
    }

    /// Stores a key; the caller trims with ``trim()`` once the message is done.
    mutating func append(_ entry: Entry) {
        entries.append(entry)
    }

    /// Drops the oldest keys beyond the limit.
    mutating func trim() {
        let excess = entries.count - ProtocolLimits.maxStoredSkippedKeysPerState
        if excess > 0 { entries.removeFirst(excess) }
    }
}
