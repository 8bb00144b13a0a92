import E2EEKeyStore

extension Account {
    /// The requests to observe, like ``pendingRecipientUpdates()``: the list now, then the list
    /// again whenever it changed — a channel learned, accepted or declined, a message waiting in
    /// a DM request that names its candidate. Read from the store (no request to the server per
    /// list): a group's members as last read, a DM's candidate among the senders whose sending
    /// device this device pinned for them; a sender whose devices were never listed here has
    /// them read once (the directory's cached listing, which pins them). Every list yielded is recorded as shown, so
    /// ``acceptChannel(_:)`` accepts exactly what the app rendered from it. A reader that falls
    /// behind gets the newest list; the stream ends when its reader stops reading it.
    public nonisolated func channelRequestUpdates() -> AsyncStream<[ChannelRequest]> {
        let events = broadcaster.events()
        let (updates, continuation) = AsyncStream<[ChannelRequest]>.makeStream(bufferingPolicy: .bufferingNewest(1))
        let reader = Task { [weak self] in
            var last: [ChannelRequest]?
            func publishIfChanged() async {
                guard let self, let list = try? await self.storedChannelRequests(), list != last,
                      (try? await self.recordShown(list)) != nil else { return }
                last = list
                continuation.yield(list)
            }
            await publishIfChanged()
            for await event in events {
                switch event {
                case .channelsChanged, .timeline, .reloadNeeded, .announcement: await publishIfChanged()
                default: continue
                }
            }
            continuation.finish()
        }
        continuation.onTermination = { _ in reader.cancel() }
        return updates
    }

    /// The requests as the store holds them (see ``channelRequestUpdates()``).
    /// - Throws: key store errors.
    func storedChannelRequests() async throws -> [ChannelRequest] {
        let own = userID.rawValue
        let lookahead = Self.candidateLookahead
        let requests = try await store.read { [store] db -> [ChannelRequest] in
            var requests: [ChannelRequest] = []
            for pin in try store.channelTrustStore.loadPins(standing: .request, db) {
                guard let record = try store.channelStore.loadChannel(id: pin.channelID, db) else { continue }
                var candidate: String?
                var members: [String] = []
                if pin.isDM {
                    candidate = try store.channelTrustStore.loadCandidates(channelID: pin.channelID, ownUserID: own, limit: lookahead, db).first { sender in
                        guard let device = sender.deviceID else { return false }
                        return try store.remoteIdentityStore.loadIdentity(userID: sender.userID, deviceID: device, db) != nil
                    }?.userID
                } else {
                    members = try store.channelStore.loadMembers(channelID: pin.channelID, db).map(\.userID)
                }
                requests.append(ChannelRequest(channel: ChatChannel(record), candidate: candidate.map { UserID(stored: $0) },
                                               members: members.map { UserID(stored: $0) }))
            }
            return requests
        }
        // A DM whose senders' devices were never listed here (its waiting messages are not
        // checked before acceptance): their listing is read once — it pins them, so later
        // lists read the store only.
        var checked: [ChannelRequest] = []
        for var request in requests {
            if request.channel.isDM, request.candidate == nil { request.candidate = try await offeredCandidate(in: request.channel.id) }
            checked.append(request)
        }
        return checked
    }

    /// Records `requests` as what the app was shown: ``acceptChannel(_:)`` accepts these.
    /// - Throws: key store errors.
    private func recordShown(_ requests: [ChannelRequest]) async throws {
        let time = configuration.now()
        try await store.write { [store] db in
            for request in requests {
                try store.channelTrustStore.storeRequestView(channelID: request.channel.id.rawValue, candidate: request.candidate?.rawValue,
                                                             members: request.members.map(\.rawValue), at: time, db)
            }
        }
    }
}
