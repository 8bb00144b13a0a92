/// The socket's confirmation read (docs/spec/sync.md §11.6): a socket can lose events without
/// noticing — the server's fan-out dies and another client's new socket heals it
/// (docs/spec/server-api.md §12) — so ``ConnectionPolicy/socketConfirmationDelay`` after an open
/// socket delivers a message (the first since the last such read) the delegate reads the
/// channels it delivered into over REST. A quiet socket costs nothing; a busy one one read per
/// channel per delay.
extension ConnectionMachine {
    /// The open socket delivered a message: the confirmation read is timed, unless it already is.
    mutating func socketDeliveredMessage(_ effects: inout [ConnectionEffect]) {
        guard phase == .connected, let delay = policy.socketConfirmationDelay,
              liveTimers[.socketConfirmation] == nil else { return }
        startTimer(.socketConfirmation, after: delay, &effects)
    }
}
