import E2EECrypto
import Foundation
@_spi(StoreInternals) import E2EEKeyStore

/// The contact side of text 1.3 (docs/spec/protocol.md §10): what this device knows of a
/// contact's user key, and the app's decisions about it.
extension Account {
    /// What this device knows of `userID`'s user key, from what it stored (no network).
    /// - Throws: key store errors.
    public func userKey(of userID: UserID) async throws -> UserKeyInfo {
        let user = userID.rawValue
        let (standing, keys) = try await store.read { [store] db in
            (try store.contactKeyStore.loadStanding(userID: user, db), try store.contactKeyStore.loadKeys(userID: user, db))
        }
        let state: UserKeyInfo.State = switch standing?.state {
        case nil: .unknown
        case .none?: .none
        case .pinned?: .pinned
        case .conflicted?: .conflicted
        }
        let pinned = keys.first { $0.state.isPinned }
        let change = standing?.pendingChange.map {
            UserKeyInfo.Change(to: $0.to.flatMap(UserKey.init(publicKey:)), dueAt: Date(timeIntervalSince1970: TimeInterval($0.dueAt)),
                               vouched: $0.vouched, wasVerified: $0.wasVerified)
        }
        return UserKeyInfo(
            userID: userID, state: state, key: standing?.pinnedKey.flatMap(UserKey.init(publicKey:)), verified: pinned?.state == .verified,
            seenUntil: pinned.map { Date(timeIntervalSince1970: TimeInterval($0.seenUntil)) },
            lastSeen: pinned.map { Date(timeIntervalSince1970: TimeInterval($0.seenAt)) }, change: change,
            otherKeys: keys.filter { !$0.state.isPinned }.compactMap { UserKey(publicKey: $0.key) })
    }

    /// The devices of `userID` linked under their pinned key in the latest listing read (reads
    /// one when none is cached); empty for a user without a key or unresolved.
    /// - Throws: ``ServerError``, key store errors.
    public func linkedDevices(of userID: UserID) async throws -> [DeviceID] {
        guard case .linked(let linked) = try await directory.userKeyResolution(of: userID) else { return [] }
        return linked.sorted().map { DeviceID(stored: $0) }
    }

    /// Accepts the key change due for `userID` (``IdentityEvent/userKeyChanged(userID:to:lastSeen:vouched:wasVerified:)``):
    /// the new key is pinned, or with *no key* the user returns to text 1.2 with every listed
    /// device held until approved. Best after comparing safety numbers.
    /// - Throws: ``MessagingError/unknownUserKey(userID:)`` when no change waits, key store errors.
    public func acceptUserKeyChange(of userID: UserID) async throws {
        try await trustDecision {
            let user = userID.rawValue
            try await store.write { [store] db in
                let contacts = store.contactKeyStore
                guard let standing = try contacts.loadStanding(userID: user, db), let change = standing.pendingChange else {
                    throw MessagingError.unknownUserKey(userID: userID)
                }
                if let key = change.to {
                    try store.contactKeyStore.pinKey(key, userID: user, db)
                } else {
                    try store.contactKeyStore.returnToNoKey(userID: user, db)
                }
            }
            await rejudge(userID)
        }
    }

    /// Pins `key` for `userID` after the user compared safety numbers: any key listed for the
    /// user, replaced ones included, at any time (docs/spec/protocol.md §10.17). Resolves a
    /// conflict or a pending change.
    /// - Throws: ``MessagingError/unknownUserKey(userID:)`` when the key was never listed for the
    ///   user, key store errors.
    public func pinUserKey(_ key: UserKey, of userID: UserID) async throws {
        try await trustDecision {
            let user = userID.rawValue
            try await store.write { [store] db in
                guard try store.contactKeyStore.loadKeys(userID: user, db).contains(where: { $0.key == key.publicKey }) else {
                    throw MessagingError.unknownUserKey(userID: userID)
                }
                try store.contactKeyStore.pinKey(key.publicKey, userID: user, db)
            }
            await rejudge(userID)
        }
    }

    /// Returns `userID` to *no key* after the user compared safety numbers: text 1.2 applies
    /// again, and every listed device of theirs is held until approved.
    /// - Throws: ``MessagingError/unknownUserKey(userID:)`` for a user this device never met,
    ///   key store errors.
    public func forgetUserKey(of userID: UserID) async throws {
        try await trustDecision {
            let user = userID.rawValue
            try await store.write { [store] db in
                // A user never met has no key to forget; storing *none* would skip their first contact.
                guard try store.contactKeyStore.loadStanding(userID: user, db) != nil else { throw MessagingError.unknownUserKey(userID: userID) }
                try store.contactKeyStore.returnToNoKey(userID: user, db)
            }
            await rejudge(userID)
        }
    }

    /// Marks `userID`'s pinned key verified (after comparing safety numbers); a later change
    /// says the old key was verified.
    /// - Throws: ``MessagingError/unknownUserKey(userID:)`` when no key is pinned, key store errors.
    public func markUserKeyVerified(of userID: UserID) async throws {
        try await trustDecision {
            let user = userID.rawValue
            try await store.write { [store] db in
                guard try store.contactKeyStore.markPinnedKeyVerified(userID: user, db) else { throw MessagingError.unknownUserKey(userID: userID) }
            }
        }
    }

    /// Confirms this device's clock (docs/spec/protocol.md §10.19): the mark and the agreed
    /// reading become now, the clock is no longer gone back or suspect, and every stored
    /// `seen_until` is capped at now + 45 days.
    /// - Throws: key store errors.
    public func confirmClock() async throws {
        let now = configuration.userKeyClock()
        try await store.write { [store] db in
            let contacts = store.contactKeyStore
            try contacts.storeClock(ClockReadings(mark: now, agreedReading: now), db)
            try contacts.capSeenUntil(at: now + UserKeyClock.maximumLifetime, db)
        }
        await directory.invalidate()
    }

    /// After a decision about `userID`'s key: reads their listing again under it (best effort:
    /// offline, the next listing does it), so that the devices it links are known, and lets the
    /// messages that waited for them through (§10.8).
    private func rejudge(_ userID: UserID) async {
        await directory.invalidate()
        _ = try? await directory.userKeyResolution(of: userID)
        _ = try? await pipeline.redrivePending()
    }
}
