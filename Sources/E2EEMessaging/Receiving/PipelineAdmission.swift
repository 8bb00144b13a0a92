/// What a call of the receive path needs to run (``PipelineAdmission``).
enum AdmissionClaim: Sendable {
    /// A batch of `channelID` holding `messageIDs`.
    case batch(channelID: ChannelID, messageIDs: Set<MessageID>)
    /// The whole path (edits, deletes, re-drives).
    case exclusive
}

/// Which calls of the receive path may run at the same time: batches of different channels
/// overlap, unless they carry a message id another running batch holds (the in-flight dedupe
/// set, so one id is never planned by two batches at once); batches of one channel, and every
/// other call (edits, deletes, re-drives), run alone. Calls are admitted in arrival order: a call
/// that cannot start yet holds back every later one, so none waits forever and a channel's
/// batches run in the order they were made. A value without locks or tasks: the
/// ``ReceiveScheduler`` holds it under a mutex, and `Waiter` is what it wakes.
struct PipelineAdmission<Waiter> {
    private var exclusiveRunning = false
    private var runningChannels: Set<ChannelID> = []
    private var inFlight: Set<MessageID> = []
    private var waiting: [(claim: AdmissionClaim, waiter: Waiter)] = []

    /// Nothing running, nobody waiting.
    init() {}

    /// Whether `claim` can start now, with nothing queued before it.
    private func admits(_ claim: AdmissionClaim) -> Bool {
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
    mutating func tryStart(_ claim: AdmissionClaim) -> Bool {
        guard waiting.isEmpty, admits(claim) else { return false }
        start(claim)
        return true
    }

    /// Queues a call that could not start; ``finish(_:)`` hands `waiter` back once it has started.
    mutating func enqueue(_ claim: AdmissionClaim, _ waiter: Waiter) {
        waiting.append((claim, waiter))
    }

    /// Ends `claim`, then starts the queued calls that are now admitted, in order, stopping at
    /// the first that is not. Returns their waiters, in order, for the caller to wake.
    mutating func finish(_ claim: AdmissionClaim) -> [Waiter] {
        switch claim {
        case .exclusive:
            exclusiveRunning = false
        case .batch(let channelID, let messageIDs):
            runningChannels.remove(channelID)
            inFlight.subtract(messageIDs)
        }
        var started: [Waiter] = []
        while let next = waiting.first, admits(next.claim) {
            waiting.removeFirst()
            start(next.claim)
            started.append(next.waiter)
        }
        return started
    }

    private mutating func start(_ claim: AdmissionClaim) {
        switch claim {
        case .exclusive:
            exclusiveRunning = true
        case .batch(let channelID, let messageIDs):
            runningChannels.insert(channelID)
            inFlight.formUnion(messageIDs)
        }
    }
}
