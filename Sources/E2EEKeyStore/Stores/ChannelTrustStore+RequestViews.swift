import Foundation
import GRDB

/// What this device last showed the app of each request (schema `v15`): acceptance takes it,
/// not what the server lists a moment later (docs/spec/protocol.md §5.9).
extension ChannelTrustStore {
    /// Records what a request was shown as: a DM's candidate, or a group's listed members.
    /// - Throws: GRDB's `DatabaseError`.
    public func storeRequestView(channelID: String, candidate: String?, members: [String], at time: StoreTime, _ db: Database) throws {
        let encoded = String(decoding: try JSONEncoder().encode(members.sorted()), as: UTF8.self)
        try db.run("INSERT OR REPLACE INTO request_views (channel_id, candidate, members, shown_at) VALUES (?, ?, ?, ?)",
                   [channelID, candidate, encoded, time.microseconds])
    }

    /// What a request was last shown as (`nil`: never shown).
    /// - Throws: GRDB's `DatabaseError`, ``KeyStoreError/corruptColumn(table:column:)``.
    public func loadRequestView(channelID: String, _ db: Database) throws -> (candidate: String?, members: [String])? {
        guard let row = try db.row("SELECT candidate, members FROM request_views WHERE channel_id = ?", [channelID]) else { return nil }
        let candidate: String? = try row.decodeIfPresent("candidate", table: "request_views")
        let encoded: String = try row.decode("members", table: "request_views")
        guard let members = try? JSONDecoder().decode([String].self, from: Data(encoded.utf8)) else {
            throw KeyStoreError.corruptColumn(table: "request_views", column: "members")
        }
        return (candidate, members)
    }

    /// Forgets what a request was shown as (it was accepted or declined).
    /// - Throws: GRDB's `DatabaseError`.
    public func removeRequestView(channelID: String, _ db: Database) throws {
        try db.run("DELETE FROM request_views WHERE channel_id = ?", [channelID])
    }

    /// A DM request's possible candidates, in the order ``loadCandidate(channelID:ownUserID:_:)``
    /// offers them (the earliest waiting or decrypted message first), each with the device
    /// the server says sent that message (`nil` when it named none): at most `limit`, one per user.
    /// - Throws: GRDB's `DatabaseError`, ``KeyStoreError/corruptColumn(table:column:)``.
    public func loadCandidates(channelID: String, ownUserID: String, limit: Int, _ db: Database) throws -> [(userID: String, deviceID: String?)] {
        var seen: Set<String> = []
        var candidates: [(userID: String, deviceID: String?)] = []
        for row in try db.rows("""
            SELECT sender_user_id, sender_device_id FROM timeline t
            WHERE t.channel_id = ? AND t.kind = 'message' AND t.is_own = 0
                AND (t.state = 'decrypted' OR EXISTS (SELECT 1 FROM pending_ciphertexts p
                                                      WHERE p.message_id = t.message_id AND p.waiting_for = 'request:' || t.channel_id))
                AND t.sender_user_id IS NOT NULL AND t.sender_user_id != ?
                AND NOT EXISTS (SELECT 1 FROM channel_member_standings m
                                WHERE m.channel_id = t.channel_id AND m.user_id = t.sender_user_id AND m.state = 'declined')
            ORDER BY t.created_at, t.message_id
            """, [channelID, ownUserID]) {
            let user: String = try row.decode("sender_user_id", table: "timeline")
            guard seen.insert(user).inserted else { continue }
            candidates.append((user, try row.decodeIfPresent("sender_device_id", table: "timeline")))
            if candidates.count >= limit { break }
        }
        return candidates
    }
}
