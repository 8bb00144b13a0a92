import E2EECrypto
import E2EEKeyStore

extension Account {
    /// Posts this device's decision in a group as signed announcements (docs/spec/protocol.md
    /// §5.15): this account's other trusted devices apply it as their own, other members' apps
    /// are prompted. Nothing is posted in a DM or a channel this device may not send in. The
    /// decision itself is already stored: an announcement that cannot be encrypted stays in the
    /// outbox as a failed entry the app can retry, like any message.
    func announce(_ kind: PayloadAnnouncement.Kind, _ ids: [String], in channelID: ChannelID) async {
        let unique = Array(Set(ids.map { $0.lowercased() })).sorted()
        guard !unique.isEmpty || kind == .accepted else { return }
        do {
            let channel = try await channelDirectory.channel(id: channelID)
            guard !channel.isDM else { return }
            let batches = stride(from: 0, to: max(unique.count, 1), by: ProtocolLimits.maxAnnouncementIDs).map {
                Array(unique[$0..<min($0 + ProtocolLimits.maxAnnouncementIDs, unique.count)])
            }
            for batch in batches {
                let announcement = try PayloadAnnouncement(kind: kind, ids: try batch.map { try WireUUID(text: $0) })
                let payload = try makePayload(text: "", editOf: nil, replyTo: nil, with: nil, announcement: announcement)
                _ = try await queueReporting(payload: payload, channelID: channel.id, kind: .message, target: nil)
            }
        } catch {
            // Not a UUID (then no device of ours could match it either), or a channel this
            // device may not send in (a request, a declined or forgotten channel): nothing to tell.
        }
    }

    /// Whether this account has another device this device trusts (listed at registration or
    /// login, or approved since): the only readers an `accepted` announcement is for.
    func hasOtherOwnDevices() async throws -> Bool {
        let user = userID
        let known = try await store.read { [store] db in try store.recipientStore.loadKnownDevices(userIDs: [user.rawValue], db) }
        return !(known[user.rawValue] ?? []).subtracting([deviceID.rawValue]).isEmpty
    }

    /// ``announce(_:_:in:)`` in every group of `channelIDs`.
    func announce(_ kind: PayloadAnnouncement.Kind, _ ids: [String], inEach channelIDs: [String]) async {
        for channelID in Set(channelIDs).sorted() { await announce(kind, ids, in: ChannelID(stored: channelID)) }
    }
}
