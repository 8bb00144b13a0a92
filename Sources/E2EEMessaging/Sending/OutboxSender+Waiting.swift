import E2EEKeyStore

/// The unreachable server (docs/spec/sync.md "Outbox"): a try without an answer is not a failure. The
/// channel retries after the policy's backoff, and after `maxAttempts` unanswered tries in a row
/// its entries wait, `.queued` (and in order), until something shows the server answers again.
extension OutboxSender {
    /// An attempt at `entry` got no answer. Returns whether the drain goes on (after the
    /// backoff) or stops, the channel parked.
    func unreachable(_ entry: OutboxMessage, reason: String) async -> Bool {
        let channelID = ChannelID(stored: entry.channelID)
        let streak = (unreachableStreaks[channelID] ?? 0) + 1
        unreachableStreaks[channelID] = streak
        settleChanged()
        if streak < policy.maxAttempts {
            do {
                try await sleep(policy.delay(afterAttempt: streak))
            } catch {
                return false
            }
            return true
        }
        unreachableStreaks[channelID] = nil
        park(channelID)
        return false
    }

    /// The head of a channel is a draft queued while the server was unreachable: encrypt it now
    /// (it goes to the end of the channel, behind which every later message waited as a draft
    /// too, so the order holds). Returns whether the drain goes on.
    func encryptWaitingDraft(_ draft: OutboxMessage) async -> Bool {
        do {
            let queued = try await drafts.encrypt(draft)
            publish(queued, .queued, serverID: nil)
            return true
        } catch {
            if error is CancellationError || Task.isCancelled { return false }
            // A rate limit met before encrypting is waited out like no answer: the entry stays
            // queued and the send gate goes on where it stopped (docs/spec/sync.md §12.6).
            if SendFailure.waitsBeforeEncrypting(error) { return await unreachable(draft, reason: String(describing: error)) }
            switch SendFailure(error) {
            case .unreachable:
                return await unreachable(draft, reason: String(describing: error))
            case .notAuthenticated:
                stopped = true
                return false
            case .refused, .unknownOutcome:
                // T12: cannot be encrypted (no devices, refused reads): failed, never plaintext.
                try? await store.markDraftUnencryptable(localID: draft.localID, error: String(describing: error), at: now())
                publish(draft, .failed, serverID: nil)
                return true
            }
        }
    }

    /// Channels whose entries wait for the server.
    var waitingChannels: Set<ChannelID> { parked }

    /// The server answered (a catch-up went through, the app says the network is back): every
    /// parked channel is sent again.
    func serverAnswered() {
        wakeUp?.cancel()
        wakeUp = nil
        let channels = parked
        parked.removeAll()
        for channel in channels { kick(channelID: channel) }
    }

    /// A message was queued while the server is away (``Account/serverAway``): its channel
    /// waits, without a try, until the server answers (a catch-up after the reconnect) or the
    /// policy's interval passes.
    func waitForServer(channelID: ChannelID) {
        guard drains[channelID] == nil else { return }  // a send under way parks it when unanswered
        park(channelID)
        settleChanged()
    }

    func park(_ channelID: ChannelID) {
        parked.insert(channelID)
        guard wakeUp == nil, !isShutDown else { return }
        let interval = max(policy.unreachableRetryInterval, .milliseconds(10))
        wakeUp = Task { [weak self] in
            try? await Task.sleep(for: interval)
            guard !Task.isCancelled else { return }
            await self?.serverAnswered()
        }
    }
}
