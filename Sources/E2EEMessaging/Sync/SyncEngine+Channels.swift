import E2EEKeyStore

/// Each channel caught up on its own (docs/spec/sync.md guarantee 10): a channel whose reads
/// fail, stall, loop or are rate limited is recorded with its own backoff while the others are
/// read; the channels a catch-up could not reach wait for a later one; a retry reads the
/// channels that are due.
extension SyncEngine {
    /// Channels caught up at the same time: their pages are read and ingested side by side
    /// (the receive pipeline overlaps batches of different channels), so one slow channel or a
    /// DM decrypted on one core does not leave the rest waiting.
    static let overlappingCatchUps = 4
    /// The shortest wait before a retry of waiting channels, in microseconds (a retry whose
    /// channels are all due already still leaves the server a moment).
    static let shortestRetryWait: Int64 = 1_000_000

    /// How one channel's catch-up ended.
    enum ChannelOutcome: Sendable {
        case caughtUp
        /// Recorded for the channel; `scope` says whether it may have been the server's.
        case failed(scope: SyncFailureScope, error: any Error)
    }

    /// Catches up `channels` (in order), at most ``overlappingCatchUps`` at a time and at most
    /// ``CatchUpPlan/channelsPerCatchUp`` in all; the rest, and everything still unread after
    /// a 429, wait for a later catch-up. Each failure is recorded for its channel; when every
    /// channel read failed with the server's kind of failure, the server is what failed and
    /// that is thrown too (the next catch-up then reads every channel, backoff or not). A
    /// failure that stops everything is thrown at once.
    func catchUpChannels(_ channels: [ChatChannel]) async throws {
        let failures = channelFailures
        let now = self.now().microseconds
        var reading = channels.prefix(CatchUpPlan.channelsPerCatchUp)
        let later = channels.dropFirst(CatchUpPlan.channelsPerCatchUp).map(\.id)
        if !later.isEmpty { await failures.postpone(later, until: StoreTime(microseconds: now + CatchUpPlan.postponement)) }
        var outcomes: [(channel: ChatChannel, outcome: ChannelOutcome)] = []
        try await withThrowingTaskGroup(of: (ChatChannel, ChannelOutcome).self) { group in
            func startNext() {
                guard let channel = reading.popFirst() else { return }
                group.addTask { (channel, try await self.read(channel)) }
            }
            for _ in 0..<Self.overlappingCatchUps { startNext() }
            while let (channel, outcome) = try await group.next() {
                outcomes.append((channel, outcome))
                if case .failed(_, ServerError.rateLimited(let seconds)) = outcome {
                    // The whole IP is over the limit: the channels not started yet wait.
                    let wait = Int64(max(seconds ?? 60, 1)) * 1_000_000
                    await failures.postpone(reading.map(\.id), until: StoreTime(microseconds: now + wait))
                    reading = []
                }
                startNext()
            }
        }
        let serverFailures = outcomes.compactMap { entry -> (any Error)? in
            if case .failed(.server, let error) = entry.outcome { return error }
            return nil
        }
        for (channel, outcome) in outcomes {
            switch outcome {
            case .caughtUp: await failures.clear(channel.id)
            case .failed(_, let error): await recordSyncFailure(channelID: channel.id, error)
            }
        }
        let serverFailed = !outcomes.isEmpty && serverFailures.count == outcomes.count
        await failures.setServerFailed(serverFailed)
        await scheduleRetry()
        if serverFailed, let first = serverFailures.first { throw first }
    }

    /// Catches `channelID` up for a caller that asked for it (``Account/sync(channelID:)``):
    /// its failure is recorded and thrown, whatever the other channels do; the pending queue is
    /// re-driven after it and the outbox told the server answers.
    func catchUpAsked(channelID: ChannelID) async throws {
        let host = try requireHost()
        let channel = try await host.channel(id: channelID)
        switch try await read(channel) {
        case .caughtUp:
            await channelFailures.clear(channel.id)
        case .failed(_, let error):
            await recordSyncFailure(channelID: channel.id, error)
            await scheduleRetry()
            throw error
        }
        try await isolated(channelID: nil) { _ = try await self.pipeline.redrivePending() }
        await host.serverAnswered()  // the server answers: entries waiting for it go out
    }

    /// Reads the channels whose backoff or postponement is over (the retry ``scheduleRetry()``
    /// set up). Failures are recorded; one that stops everything ends the retries.
    func catchUpWaiting() async {
        let failures = channelFailures
        let (waiting, _) = await failures.waiting()
        let now = self.now()
        do {
            let channels = try await requireHost().allChannels()
            let known = Set(channels.map(\.id))
            for id in waiting where !known.contains(id) { await failures.clear(id) }  // no longer ours: nothing to retry
            var due: [ChatChannel] = []
            for channel in channels where waiting.contains(channel.id) {
                if await failures.isDue(channel.id, at: now) { due.append(channel) }
            }
            try await catchUpChannels(try await CatchUpPlan.ordered(due, first: nil, store: store))
        } catch where SyncFailureScope(error) != .everything {
            await scheduleRetry()  // the server failed as a whole: the channels wait on (their backoff grew)
        } catch {
            return  // logged out, session over or cancelled: no more retries
        }
    }

    /// Schedules a read of the waiting channels for when the first of them is due.
    func scheduleRetry() async {
        let failures = channelFailures
        let (waiting, earliest) = await failures.waiting()
        guard !waiting.isEmpty, let earliest else { return }
        let micros = max(earliest.microseconds - now().microseconds, 0)
        // Weakly: a retry waiting in the engine's own log must not keep the engine alive.
        await failures.scheduleRetry(after: .microseconds(max(micros, Self.shortestRetryWait))) { [weak self] in
            await self?.catchUpWaiting()
        }
    }

    /// Catches `channel` up; a failure that stops everything is thrown, any other is returned.
    private func read(_ channel: ChatChannel) async throws -> ChannelOutcome {
        do {
            try await catchUp(channel)
            return .caughtUp
        } catch {
            let scope = SyncFailureScope(error)
            if scope == .everything { throw error }
            return .failed(scope: scope, error: error)
        }
    }
}
