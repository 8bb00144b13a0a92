import E2EECrypto
import E2EEMessaging
import GRDB

/// What tests compare a timeline with.
enum TimelineChecks {
    /// The texts of the readable messages of `account`'s timeline of `channelID`, in order.
    static func readableTexts(_ account: Account, _ channelID: ChannelID) async throws -> [String] {
        try await account.timeline(channelID: channelID, limit: 100_000).compactMap { $0.state == .decrypted ? $0.text : nil }
    }

    /// Whether `items` are strictly ordered by `(created_at, id)`.
    static func isOrdered(_ items: [TimelineItem]) -> Bool {
        zip(items, items.dropFirst()).allSatisfy { ($0.createdAt, $0.messageID) < ($1.createdAt, $1.messageID) }
    }

    /// Every message of a channel on the server but the sender key distributions and the posts
    /// `shownBy` stored as control rows (announcements and tombstones, docs/spec/protocol.md
    /// §5.15, §6.7 — never timeline messages), in `(created_at, id)` order, read with the
    /// tie-safe pager by `reader` (a member). A message `shownBy` does not have is kept.
    static func serverTimeline(_ channelID: ChannelID, reader: any ChatServerAPI, shownBy account: Account? = nil) async throws -> [ServerMessage] {
        var pager = MessageHistoryPager(server: reader, channelID: channelID, pageSize: 100)
        var all: [ServerMessage] = []
        while true {
            let page = try await pager.nextPage()
            if page.isEmpty { break }
            all += page
        }
        let control: Set<MessageID> = if let account {
            Set(try await account.store.read { db in
                try String.fetchAll(db, sql: "SELECT message_id FROM timeline WHERE channel_id = ? AND kind = 'control'", arguments: [channelID.rawValue]).map { MessageID($0) }
            })
        } else { [] }
        return all.filter { $0.contentType != EnvelopeKind.senderKeyDistribution.contentType && !control.contains($0.id) }
            .sorted(by: ServerMessage.timelineOrder)
    }
}
