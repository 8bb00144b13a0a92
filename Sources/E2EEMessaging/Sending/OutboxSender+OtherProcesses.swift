import E2EEKeyStore

/// Entries another process queued on the same store (a command-line `send` that found the
/// server away, an app's extension): this process's outbox learns of them only by reading the
/// store, which ``adoptEntriesQueuedElsewhere(olderThan:)`` does cheaply (one indexed read).
extension OutboxSender {
    /// Starts sending the channels of `.queued` entries not seen by an earlier call, once each
    /// has rested `olderThan` (a live process marks its own entry `.sending` within
    /// milliseconds; one still queued after that is left to whoever reads the store next).
    /// A channel where an entry is being sent (by any process) is left alone, and so is one
    /// parked here waiting for the server (it reads the store when the server answers).
    /// What ``resumeAll()`` found queued (at open) counts as seen: it was sent then.
    /// - Throws: key store errors.
    func adoptEntriesQueuedElsewhere(olderThan rest: Duration) async throws {
        guard !isShutDown, !stopped else { return }
        let entries = try await store.outbox(states: [.queued, .sending])
        let queued = entries.filter { $0.state == .queued }
        var seen = seenQueued
        let busy = Set(entries.filter { $0.state == .sending }.map(\.channelID))
        let settled = now().microseconds - rest.microsecondCount
        var channels: Set<ChannelID> = []
        for entry in queued where !seen.contains(entry.localID) && entry.updatedAt.microseconds <= settled {
            seen.insert(entry.localID)
            let channel = ChannelID(stored: entry.channelID)
            if !busy.contains(entry.channelID), !parked.contains(channel) { channels.insert(channel) }
        }
        // Forget entries that left the queue, so the set stays as small as the queue.
        seenQueued = seen.intersection(queued.map(\.localID))
        for channel in channels { kick(channelID: channel) }
    }
}
