import E2EEKeyStore

extension Account {
    /// Why a send must not wait on the server now, or `nil` when it may: while the connection
    /// supervisor is still trying to reach the server (its first attempt, a reconnect, or
    /// polling because the socket keeps failing), the server has not answered lately, and a
    /// request to it could wait its whole deadline (a server that accepts connections and never
    /// answers). Then ``send(text:to:replyTo:)`` queues the message without any network I/O and
    /// the outbox checks the recipients and encrypts it once the server answers
    /// (docs/spec/sync.md §12). Connected, the server answered just now; with no connection
    /// running, the send itself is how the server is reached.
    var serverAway: String? {
        switch supervisor?.state {
        case .connecting?: "the connection is being opened"
        case .reconnecting(let attempt)?: "the connection is lost (reconnect attempt \(attempt))"
        case .polling?: "the connection keeps failing"
        case .connected?, .disconnected?, .failed?, nil: nil
        }
    }
}
