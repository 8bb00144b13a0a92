import GRDB

/// Writes the rows the post faults make (released, reposted and forged posts): stored dated
/// "now" — strictly after the channel's newest row, so they sort last — then published as
/// `message.new`, to the sockets of the one device the row is shown to when it has one. Written
/// before publishing, whatever the commit-order faults and quirks say.
struct FaultPostWriter: Sendable {
    let database: DatabaseQueue
    let hub: EventHub
    let clock: DevServerClock
    /// The timestamp format of socket payloads.
    let socketSuffix: Timestamp.Suffix

    /// Stores `message` with a fresh `created_at` and publishes it; the stored row, or `nil` when
    /// its channel no longer exists (nothing is stored then).
    /// - Throws: ``FaultInjector/FaultError/userNotFound(_:)`` when the sender user does not
    ///   exist; GRDB's `DatabaseError`.
    func store(_ message: StoredMessage) async throws -> StoredMessage? {
        let now = clock.nowMicros
        let stored = try await database.write { db -> StoredMessage? in
            guard try Bool.fetchOne(db, sql: "SELECT 1 FROM channels WHERE id = ?", arguments: [message.channelID]) != nil else { return nil }
            if let sender = message.senderID,
               try Bool.fetchOne(db, sql: "SELECT 1 FROM users WHERE id = ?", arguments: [sender]) == nil {
                throw FaultInjector.FaultError.userNotFound(sender)
            }
            var message = message
            message.createdAt = try StoredMessage.nextCreatedAt(db, channelID: message.channelID, now: now, tieRun: nil)
            try message.insert(db)
            return message
        }
        guard let stored else { return nil }
        let event = ServerEvent.messageNew(Representation.message(stored.row, suffix: socketSuffix))
        await hub.publish(toChannel: stored.channelID, event, onlyDevice: stored.visibleTo)
        return stored
    }

    /// The stored message `id`, or `nil`.
    /// - Throws: GRDB's `DatabaseError`.
    func message(_ id: String) async throws -> StoredMessage? {
        try await database.read { db in try StoredMessage.fetch(db, id: id) }
    }
}
