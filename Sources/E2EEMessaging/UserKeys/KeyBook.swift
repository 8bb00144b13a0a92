import E2EEKeyStore

/// The keys this device knows for one user while ``UserKeyRule`` works on them: what each
/// listing adds (`E_max`, `seen_until`, `seen_at`, never lowered) and the pins it changes.
struct KeyBook: Sendable {
    private var keys: [ContactKey]
    private let known: Set<[UInt8]>
    private let userID: String

    /// The stored keys of `userID`.
    init(_ keys: [ContactKey], userID: String) {
        self.keys = keys
        self.known = Set(keys.map(\.key))
        self.userID = userID
    }

    /// Raises each key's `E_max` and `seen_until` to what the listing's current certificates
    /// show, records keys seen for the first time as listed, and dates them.
    mutating func record(_ current: [UserKeyRule.CurrentCertificate], now: Int64) {
        for certificate in current {
            guard let index = index(of: certificate.key) else {
                keys.append(ContactKey(userID: userID, key: certificate.key, state: .listed, maxEpoch: certificate.epoch,
                                       seenUntil: certificate.notAfter, seenAt: now, firstListedAt: now))
                continue
            }
            keys[index].maxEpoch = max(keys[index].maxEpoch, certificate.epoch)
            keys[index].seenUntil = max(keys[index].seenUntil, certificate.notAfter)
            keys[index].seenAt = max(keys[index].seenAt, now)
        }
    }

    /// Whether the key was stored before this listing.
    func knewBefore(_ key: [UInt8]) -> Bool { known.contains(key) }

    /// `E_max` of the key (0 when unknown).
    func maxEpoch(of key: [UInt8]) -> UInt32 { index(of: key).map { keys[$0].maxEpoch } ?? 0 }

    /// `seen_until` of the key (0 when unknown).
    func seenUntil(of key: [UInt8]) -> UInt32 { index(of: key).map { keys[$0].seenUntil } ?? 0 }

    /// `seen_at` of the key (0 when unknown).
    func seenAt(of key: [UInt8]) -> Int64 { index(of: key).map { keys[$0].seenAt } ?? 0 }

    /// The key's state, if known.
    func state(of key: [UInt8]) -> ContactKey.State? { index(of: key).map { keys[$0].state } }

    /// Pins `key` (keeping a verified mark on it), replacing any other pinned key.
    mutating func pin(_ key: [UInt8]) {
        keys.pin(key, userID: userID)
    }

    /// Marks `key` replaced.
    mutating func replace(_ key: [UInt8]) {
        if let index = index(of: key) { keys[index].state = .replaced }
    }

    /// The keys to store: every key that was ever pinned or declined, and at most
    /// ``UserKeyRule/maximumListedKeys`` listed-only keys, the newest.
    func trimmed() -> [ContactKey] {
        let listed = keys.filter { $0.state == .listed }.sorted { $0.firstListedAt > $1.firstListedAt }
        let kept = Set(listed.prefix(UserKeyRule.maximumListedKeys).map(\.key))
        return keys.filter { $0.state != .listed || kept.contains($0.key) }
    }

    private func index(of key: [UInt8]) -> Int? { keys.firstIndex { $0.key == key } }
}
