import GRDB

/// The bounds of messages waiting for a device to be linked (docs/spec/protocol.md §10.8): at
/// most 30 days — longer while a due key change that would let them through waits for the app,
/// until 7 days after it became due — and at most `perDevice` per (user, device) and `perUser`
/// per user, the device with the most waiting losing its oldest first.
/// A row whose device is linked now (or whose user has no key any more) is no longer waiting:
/// the re-drive that follows lets it through, so the bounds neither count nor settle it — an
/// acceptance that links the device after 30 days must not lose what it released.
extension KeyStore {
    /// Settles the rows over the bounds as undecryptable with `reason` (``settlePendingRow(id:channelID:reason:_:)``)
    /// and returns them. `now` in unix seconds.
    /// - Throws: GRDB's `DatabaseError`, ``KeyStoreError/corruptColumn(table:column:)``.
    package func settleUnlinkedWaits(reason: String, now: Int64, maximumAge: Int64, keptAfterDueChange: Int64,
                                     perDevice: Int, perUser: Int) async throws -> [SettledPendingRow] {
        try await handOff.queuedWrite { [self] db in
            let rows = try db.rows("""
                SELECT p.message_id, p.channel_id, p.waiting_for, p.received_at, t.sender_user_id
                FROM pending_ciphertexts p CROSS JOIN timeline t ON t.message_id = p.message_id
                WHERE p.waiting_for >= 'unlinked:' AND p.waiting_for < 'unlinked;' AND t.state = 'pending_key'
                  AND NOT EXISTS (SELECT 1 FROM device_links l WHERE l.linked = 1 AND p.waiting_for = 'unlinked:' || l.user_id || '/' || l.device_id)
                  AND NOT EXISTS (SELECT 1 FROM contact_key_standings s WHERE s.state = 'none' AND p.waiting_for LIKE 'unlinked:' || s.user_id || '/%')
                ORDER BY t.created_at, t.message_id
                """)
            struct Wait { var id: String; var channel: String; var key: String; var user: String; var receivedAt: Int64 }
            let t = PendingCiphertextStore.table
            let waits = try rows.map { row in
                Wait(id: try row.decode("message_id", table: t), channel: try row.decode("channel_id", table: t),
                     key: try row.decode("waiting_for", table: t), user: try row.decodeIfPresent("sender_user_id", table: "timeline") ?? "",
                     receivedAt: (try row.decode("received_at", table: t) as Int64) / 1_000_000)
            }
            var refused = Set<String>()
            var dueChanges: [String: Int64?] = [:]
            for wait in waits where now - wait.receivedAt > maximumAge {
                if dueChanges[wait.user] == nil { dueChanges[wait.user] = try contactKeyStore.loadStanding(userID: wait.user, db)?.pendingChange?.dueAt }
                if let due = dueChanges[wait.user] ?? nil, now < due + keptAfterDueChange { continue }
                refused.insert(wait.id)
            }
            // Oldest first within each device, then the fullest device of a full user loses its oldest.
            var byDevice: [String: [Wait]] = [:]
            for wait in waits where !refused.contains(wait.id) { byDevice[wait.key, default: []].append(wait) }
            for (key, list) in byDevice where list.count > perDevice {
                for wait in list.prefix(list.count - perDevice) { refused.insert(wait.id) }
                byDevice[key] = Array(list.suffix(perDevice))
            }
            var byUser: [String: [String]] = [:]
            for (key, list) in byDevice { if let user = list.first?.user { byUser[user, default: []].append(key) } }
            for (_, keys) in byUser {
                var total = keys.reduce(0) { $0 + (byDevice[$1]?.count ?? 0) }
                while total > perUser, let fullest = keys.max(by: { (byDevice[$0]?.count ?? 0, $1) < (byDevice[$1]?.count ?? 0, $0) }),
                      let oldest = byDevice[fullest]?.first {
                    refused.insert(oldest.id)
                    byDevice[fullest]?.removeFirst()
                    total -= 1
                }
            }
            return try waits.filter { refused.contains($0.id) }.compactMap { wait in
                try settlePendingRow(id: wait.id, channelID: wait.channel, reason: reason, db)
            }
        }
    }
}
