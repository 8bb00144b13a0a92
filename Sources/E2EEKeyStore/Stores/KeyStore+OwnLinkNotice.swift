import GRDB

/// What a device without a user key of its own is owed when our own listing shows a current
/// certificate of our user (docs/spec/protocol.md §10.25).
package enum OwnLinkNotice: Sendable, Equatable {
    /// A device it trusts carries the key: it becomes unlinked until linked.
    case linkingRequired
    /// Only devices it does not trust carry the key: it is told once to link.
    case linkSuggested
}

extension KeyStore {
    /// The notice due to this device when the own devices `certified` list a current
    /// certificate: ``OwnLinkNotice/linkingRequired`` when one of them is trusted here (known and
    /// confirmed), else ``OwnLinkNotice/linkSuggested`` unless it was told already; `nil` once
    /// this device has a key record.
    /// - Throws: GRDB's `DatabaseError`.
    package func ownLinkNoticeDue(certified: Set<String>, userID: String, _ db: Database) throws -> OwnLinkNotice? {
        guard try ownUserKeyStore.load(db) == nil else { return nil }
        let known = try recipientStore.loadKnownDevices(userIDs: [userID], db)[userID] ?? []
        let trusted = known.subtracting(try recipientStore.loadUnconfirmedDevices(userID: userID, db))
        if !certified.isDisjoint(with: trusted) { return .linkingRequired }
        return try ownUserKeyStore.linkSuggestedAt(db) == nil ? .linkSuggested : nil
    }
}
