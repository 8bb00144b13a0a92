/// The machine's answers to a socket that is gone or deaf: REST polling with a cadence that
/// starts short and relaxes, and the deaf-socket checks (docs/spec/sync.md "Connection").
extension ConnectionMachine {
    // MARK: - Polling

    /// Polling starts now: `.polling`, one poll at once, the next after the first interval.
    mutating func beginPolling(_ effects: inout [ConnectionEffect]) {
        polling = true
        polls = 1
        publish(.polling, &effects)
        effects.append(.poll)
        startTimer(.poll, after: policy.pollDelay(after: polls), &effects)
    }

    /// The socket was just lost or an attempt failed: polling starts
    /// ``ConnectionPolicy/pollingStart`` from now unless the socket is back first (or the
    /// timer already runs).
    mutating func armPollingStart(_ effects: inout [ConnectionEffect]) {
        guard !polling, let start = policy.pollingStart, liveTimers[.poll] == nil else { return }
        startTimer(.poll, after: start, &effects)
    }

    /// The poll timer: either polling starts, or the next poll is due.
    mutating func pollTimerFired(_ effects: inout [ConnectionEffect]) {
        switch phase {
        case .waiting, .attempting, .settling: break
        case .idle, .background, .failed, .connected: return
        }
        guard polling else {
            beginPolling(&effects)
            return
        }
        polls += 1
        effects.append(.poll)
        startTimer(.poll, after: policy.pollDelay(after: polls), &effects)
    }

    // MARK: - Deaf sockets

    /// A message of ours got its 201: its echo is due within ``ConnectionPolicy/echoTimeout``.
    mutating func echoExpected(_ messageID: MessageID, _ effects: inout [ConnectionEffect]) {
        guard phase == .connected else { return }
        startTimer(.echo(messageID), after: policy.echoTimeout, &effects)
    }

    /// Time for the light REST check (the echo check cannot watch this socket): ask the
    /// delegate, and check again one interval later.
    mutating func deafCheckFired(_ effects: inout [ConnectionEffect]) {
        guard phase == .connected, let id = currentAttempt else { return }
        effects.append(.checkSocket(id: id))
        if let interval = policy.deafCheckInterval { startTimer(.deafCheck, after: interval, &effects) }
    }

    /// The open socket is deaf: close it and reconnect at once, like a lost connection that
    /// had lasted (the new socket's catch-up reads what this one missed).
    mutating func socketIsDeaf(_ effects: inout [ConnectionEffect]) {
        guard let id = currentAttempt else { return }
        effects.append(.close(id: id))
        currentAttempt = nil
        cancelConnectionTimers(&effects)
        stable = false
        reconnect = 1
        armPollingStart(&effects)
        scheduleAttempt(minimumWait: nil, &effects)
    }
}
