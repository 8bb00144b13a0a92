extension ConnectionMachine {
    /// What the machine is doing.
    enum Phase: Sendable, Equatable {
        /// Never started, or stopped.
        case idle
        /// Backgrounded: nothing runs until `enterForeground()`.
        case background
        /// Stopped for good until `start()`: the session ended or no one is logged in.
        case failed(reason: String)
        /// Waiting for the network to settle before the first attempt of a run.
        case settling
        /// Waiting (a retry timer runs) before the next attempt.
        case waiting
        /// Attempt ``ConnectionMachine/currentAttempt`` is fetching a ticket and connecting.
        case attempting
        /// The socket of ``ConnectionMachine/currentAttempt`` is open.
        case connected
    }
}
