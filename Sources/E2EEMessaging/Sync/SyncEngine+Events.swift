import E2EEKeyStore

/// Socket events (docs/spec/server-api.md: events are hints): each applied in arrival order to
/// a channel of ours, through the host's arrivals path; an event that cannot be applied is
/// published as refused input and the stream goes on.
extension SyncEngine {
    /// One socket event, applied (a failure is published as refused input); dropped when the
    /// account is gone.
    func received(_ event: RealtimeEvent) async {
        guard let host else { return }  // the account is gone: nothing to apply the event to
        do {
            try await handle(event, host: host)
        } catch {
            events.publish(.inputRefused(reason: "event not applied: \(error)"))
        }
    }

    /// New messages one socket delivered in a row (those that queued up while the previous call
    /// ran): each channel's admitted in one call, in arrival order, so they may share a commit,
    /// then returned — as ``received(_:)`` does for one. A
    /// channel whose admission fails is published as refused input; the others go on.
    func received(messages: [ServerMessage]) async {
        guard let host else { return }  // the account is gone
        for (channelID, batch) in MessagesByChannel.group(messages, by: \.channelID) {
            do {
                try await admitFromSocket(batch, channelID: channelID, host: host)
            } catch {
                events.publish(.inputRefused(reason: "event not applied: \(error)"))
            }
        }
    }

    /// New messages of one channel from the socket, in arrival order: admitted in one call (a
    /// channel we do not have is ignored), then returned, and the channel noted for the socket's
    /// confirmation read (``SocketDeliveries``): the verified mark does not move, since the socket
    /// may have lost what came before them without knowing it.
    private func admitFromSocket(_ batch: [ServerMessage], channelID: ChannelID, host: any SyncHost) async throws {
        guard let channel = try await knownChannel(channelID, host: host), let encryption = channel.encryption else { return }
        socketDeliveries.delivered(into: channel.id)
        _ = try await host.admit(batch, channel: ReceivingChannel(id: channel.id, encryption: encryption))
        try await removals.serverReturned(batch)
    }

    private func handle(_ event: RealtimeEvent, host: any SyncHost) async throws {
        switch event {
        case .messageNew(let message):
            try await admitFromSocket([message], channelID: message.channelID, host: host)
        case .messageEdit(let edit):
            guard let channel = try await knownChannel(edit.channelID, host: host), let encryption = channel.encryption else { return }
            _ = try await pipeline.ingestEdit(edit, channel: ReceivingChannel(id: channel.id, encryption: encryption))
        case .messageDelete(let messageID, let channelID):
            // Only the sender deletes: the server's event is a hint (docs/spec/sync.md guarantee 9).
            guard let channel = try await knownChannel(channelID, host: host) else { return }
            try await removals.serverRemoved(messageID: messageID, channelID: channel.id)
        case .typing(let userID, let channelID, let started):
            // Only our channels' (note 4), as last read: typing is not worth a request. This also
            // drops the echo checks of our other devices (docs/spec/sync.md §11.6).
            guard try await host.allChannels().contains(where: { $0.id == channelID }) else { return }
            events.publish(.typing(userID: userID, channelID: channelID, started: started))
        case .channelNew(let channel):
            try await host.adoptAnnouncedChannel(channel)
        case .lowOneTimePreKeys(let deviceID, let remaining):
            // The frame is untrusted (a malicious server can send any number): at most one is
            // acted on per interval, and what it does is bounded (KeyMaintenance.replenish).
            guard deviceID == self.deviceID, await lowPrekeyReactions.allow() else { return }
            _ = try await host.replenishOneTimePrekeys(target: nil, serverRemaining: remaining)
        case .senderKeyNew:
            return  // federated keys only; our keys travel in SKDs
        case .serverError(let text):
            events.publish(.inputRefused(reason: "server error frame (\(text.count) characters)"))
        case .unknown(let type):
            events.publish(.inputRefused(reason: "unknown event type (\(type.count) characters)"))
        }
    }

    /// Events arrive for channels we never asked for (docs/spec/server-api.md note 4): only our channels count.
    /// An unknown id re-reads the channel list at most once per
    /// ``DirectoryRefreshGate/minimumInterval`` (concurrent misses share it), so a flood of
    /// events naming unknown channels cannot amplify into requests.
    private func knownChannel(_ id: ChannelID, host: any SyncHost) async throws -> ChatChannel? {
        if let channel = try await host.allChannels().first(where: { $0.id == id }) { return channel }
        guard let refreshed = try await directoryRefreshes.refreshIfDue({ try await host.refreshAllChannels() }) else { return nil }
        return refreshed.first { $0.id == id }
    }
}
