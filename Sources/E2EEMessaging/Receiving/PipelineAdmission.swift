/// Which calls of the ``ReceivePipeline`` may run at the same time: batches of
/// different channels overlap, unless they carry a message id another running batch holds (the
/// in-flight dedupe set, so one id is never planned by two batches at once); batches of one
/// channel, and every other call (edits, deletes, re-drives), run alone. Calls are admitted in
/// arrival order: a call that cannot start yet holds back every later one, so none waits forever
/// and a channel's batches run in the order they were made.
struct PipelineAdmission {
    /// What a call needs.
    enum Claim: Sendable {
        /// A batch of `channelID` holding `messageIDs`.
        case batch(channelID: ChannelID, messageIDs: Set<MessageID>)
        /// The whole pipeline.
        case exclusive
    }

    private var exclusiveRunning = false
    private var runningChannels: Set<ChannelID> = []
    private var inFlight: Set<MessageID> = []
    private var waiting: [(claim: Claim, resume: () -> Void)] = []

    /// Whether `claim` can start now, with nothing queued before it.
    private func admits(_ claim: Claim) -> Bool {
        if exclusiveRunning { return false }
        switch claim {
        case .exclusive:
            return runningChannels.isEmpty
        case .batch(let channelID, let messageIDs):
            return !runningChannels.contains(channelID) && inFlight.isDisjoint(with: messageIDs)
        }
    }

    /// Starts `claim` at once when it is admitted and nobody waits; otherwise returns false and
    /// the caller waits with ``enqueue(_:_:)``.
    mutating func tryStart(_ claim: Claim) -> Bool {
        guard waiting.isEmpty, admits(claim) else { return false }
        start(claim)
        return true
    }

    /// Queues a call that could not start; `resume` is called when it has started.
    mutating func enqueue(_ claim: Claim, _ resume: @escaping () -> Void) {
        waiting.append((claim, resume))
    }

    /// Ends `claim`, then starts the queued calls that are now admitted, in order, stopping at
    /// the first that is not.
    mutating func finish(_ claim: Claim) {
        switch claim {
        case .exclusive:
            exclusiveRunning = false
        case .batch(let channelID, let messageIDs):
            runningChannels.remove(channelID)
            inFlight.subtract(messageIDs)
        }
        while let next = waiting.first, admits(next.claim) {
            waiting.removeFirst()
            start(next.claim)
            next.resume()
        }
    }

    private mutating func start(_ claim: Claim) {
        switch claim {
        case .exclusive:
            exclusiveRunning = true
        case .batch(let channelID, let messageIDs):
            runningChannels.insert(channelID)
            inFlight.formUnion(messageIDs)
        }
    }
}
