import E2EECrypto
@_spi(StoreInternals) import E2EEKeyStore
import Synchronization

/// The trust counter of docs/spec/protocol.md §11.3: every trust decision on the primary raises
/// the file's counter first, then the store's mirror; a store whose mirror is behind the file
/// (rolled back, the file intact) sends no manifest until the user confirms the trust state it
/// shows, which equalises the two.
extension PrimaryIssuer {
    /// Serialises every save of a primary file in this process (a trust decision's raise runs
    /// outside the issuing lock, beside the renewal's and the ceremony's writes), so no save
    /// lowers the counter another raised.
    static let fileGate = Mutex(())

    /// The two counters of a primary: the store's mirror and the file's.
    struct TrustCounters: Sendable, Equatable {
        /// The mirror in the store.
        var store: UInt64
        /// The primary file's.
        var file: UInt64
        /// Whether the store is behind the file: a store restored from an older copy.
        var storeBehind: Bool { store < file }
    }

    /// On a primary whose file opens, raises the file's trust counter by one and saves it (one
    /// save); returns whether it did. Any other device (linked, unlinked, no key, issuing
    /// stopped for a missing file) records nothing and returns `false`.
    /// - Throws: ``MessagingError/primaryFileUnprotected``, ``PrimaryFileError``, key store errors.
    func raiseFileTrustCounter() async throws -> Bool {
        guard let record = try await loadRecord(), record.role == .primary else { return false }
        guard let keychain, let file, file.exists else { return false }
        guard let key = try keychain.key(item: item, create: false) else { throw PrimaryFileError.keyUnavailable }
        do {
            try Self.fileGate.withLock { _ in
                var contents = try file.load(key: key)
                guard contents.fileID == record.fileID else { return }
                contents.trustCounter += 1
                try file.save(contents, key: key, random: random)
            }
        } catch PrimaryFileError.unprotected {
            throw MessagingError.primaryFileUnprotected
        }
        return true
    }

    /// Raises the store's mirror by one (after the file, §11.3).
    /// - Throws: key store errors.
    func raiseStoreTrustCounter() async throws {
        try await store.write { [store] db in try store.ownUserKeyStore.raiseTrustCounter(db) }
    }

    /// Both counters, or `nil` on a device that is not a primary or whose file cannot be opened
    /// (a missing or damaged file stops issuing on its own, §10.12).
    func trustCounters() async -> TrustCounters? {
        guard let record = try? await loadRecord(), record.role == .primary, let keychain, let file, file.exists,
              let key = try? keychain.key(item: item, create: false), let contents = try? file.load(key: key),
              contents.fileID == record.fileID else { return nil }
        return TrustCounters(store: record.trustCounter, file: contents.trustCounter)
    }

    /// The user confirmed the trust state this store shows: the mirror takes the file's
    /// counter. Returns the counters as they were.
    /// - Throws: ``MessagingError/notPrimary``, key store errors.
    @discardableResult
    func confirmTrustState() async throws -> TrustCounters {
        guard let counters = await trustCounters() else { throw MessagingError.notPrimary }
        try await store.write { [store] db in try store.ownUserKeyStore.raiseTrustCounter(to: counters.file, db) }
        return counters
    }
}
