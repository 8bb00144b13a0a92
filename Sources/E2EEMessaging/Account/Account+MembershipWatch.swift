import E2EEKeyStore

extension Account {
    /// How many channels one membership check re-reads: the most recently active first.
    static let watchedChannelLimit = 20
    /// Re-reads the member lists of the most recently active channels and, where one changed
    /// since it was last read, runs the comparison a send would run — which holds and publishes
    /// the joins (``IdentityEvent/memberHeld(channelID:userID:)``, held devices), the leaves
    /// (``IdentityEvent/recipientRemoved(channelID:userID:deviceID:)``) and the unexpected members
    /// it finds — without sending anything. The server never pushes membership changes
    /// (docs/spec/server-api.md §A5.1), so this is how a device that only listens learns them.
    /// A channel read for the first time is only recorded (its first contact is the first send's);
    /// a channel that cannot be compared (a request, a channel left, the server away) waits for
    /// the next check. Costs one request per channel, plus the devices of a changed one.
    func watchMembership() async {
        await noticeOwnNewDevices()
        await rereadWaitingListings()
        guard let channels = try? await channels().filter({ $0.encryption != nil }),
              let ordered = try? await CatchUpPlan.ordered(channels, first: nil, store: store) else { return }
        for channel in ordered.prefix(Self.watchedChannelLimit) {
            do {
                let store = self.store
                let before = Set(try await store.read { db in try store.channelStore.loadMembers(channelID: channel.id.rawValue, db) }.map(\.userID))
                let after = Set(try await channelDirectory.members(of: channel, refresh: true).map(\.userID))
                guard !before.isEmpty, after != before else { continue }
                _ = try await recipientGate.plan(for: channel, refreshMembers: false)
            } catch {
                continue
            }
        }
    }

    /// Reads again, with a backoff from an hour to a day per user (``WaitingListingBackoff``), the
    /// listing of each user whose messages wait for a device to be linked (docs/spec/protocol.md
    /// §10.8), and lets through what it links.
    func rereadWaitingListings() async {
        guard let users = try? await store.read({ [store] db in try store.contactKeyStore.usersWithUnlinkedWaits(db) }) else { return }
        let due = waitingListingReads.due(among: users, now: configuration.userKeyClock())
        guard !due.isEmpty else { return }
        for user in due {
            _ = try? await directory.recipientListing(of: UserID(stored: user), refresh: true)
        }
        _ = try? await pipeline.redrivePending()
    }
}
