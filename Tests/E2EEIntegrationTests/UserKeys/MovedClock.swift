@_spi(StoreInternals) import E2EEKeyStore
import E2EEMessaging
import Foundation

/// A device whose whole clock moved: text 1.2's clock (``AccountConfiguration/now``: signed
/// prekey rotation, key retention, when a message was received) and the one text 1.3's rules
/// read (``AccountConfiguration/debugClockOffset``: certificate expiry, key-change gates, how
/// long a message from an unlinked device has waited) — for the attacks that span weeks.
enum MovedClock {
    /// §5's default policies with both clocks `offset` seconds ahead of the system clock.
    static func configuration(offset: Int64) -> AccountConfiguration {
        var configuration = MessagingHarness.recipientConfiguration
        configuration.debugClockOffset = .seconds(offset)
        configuration.now = { StoreTime.now().adding(seconds: offset) }
        return configuration
    }

    /// Closes `account` and opens its store again with both clocks `days` days ahead of the
    /// system clock; the user confirms the clock (the agreed reading §10.17's gates count by),
    /// and the device catches up (which runs key maintenance: rotation when due, retention).
    static func reopen(_ account: Account, daysAhead days: Double, harness: MessagingHarness) async throws -> Account {
        await account.shutdown()
        let reopened = try await Account.open(server: try await harness.client(restoring: account.store), store: account.store,
                                              configuration: configuration(offset: Int64(days * Double(KeyedContact.day))))
        try await reopened.confirmClock()
        try await reopened.sync()
        return reopened
    }

    /// The ids of the signed prekeys `account` retains.
    static func signedPrekeyIDs(_ account: Account) async throws -> Set<UInt32> {
        Set(try await account.store.signedPrekeys().map(\.id))
    }

    /// What `account`'s messages from unlinked devices wait for, one entry per message.
    static func unlinkedWaits(_ account: Account) async throws -> [String] {
        try await account.store.read { db in
            try String.fetchAll(db, sql: """
                SELECT p.waiting_for FROM pending_ciphertexts p JOIN timeline t ON t.message_id = p.message_id
                WHERE p.waiting_for LIKE 'unlinked:%' AND t.state = 'pending_key' ORDER BY t.created_at, t.message_id
                """)
        }
    }
}
