import Synchronization

/// The new messages one socket delivered in a row while the delegate was busy: its pump adds
/// each `message.new` to the batch it rang the delegate queue for, until the delegate takes it
/// (or another kind of event comes between), so the messages that queued up during a catch-up
/// reach the delegate in one call and can share a commit (issue 47, decision 2). Every other
/// call keeps its place: a batch holds only consecutive messages of one connection, so the
/// delegate still sees a socket's events after the catch-up its opening started, in order.
final class FrameBatch: Sendable {
    private struct State {
        var messages: [ServerMessage]
        var taken = false
    }

    private let state: Mutex<State>

    /// A batch of `first`, to be rung in the delegate queue.
    init(_ first: ServerMessage) {
        state = Mutex(State(messages: [first]))
    }

    /// Adds `message` unless the delegate took the batch already; returns whether it did.
    func append(_ message: ServerMessage) -> Bool {
        state.withLock { state in
            guard !state.taken else { return false }
            state.messages.append(message)
            return true
        }
    }

    /// The batch's messages, in arrival order; nothing is added after this.
    func take() -> [ServerMessage] {
        state.withLock { state in
            state.taken = true
            return state.messages
        }
    }
}
