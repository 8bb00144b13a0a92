/// The socket side: attempts (a fresh ticket, then the handshake) and the pump that moves a
/// socket's updates into the delegate queue.
extension ConnectionSupervisor {
    /// Fetches a fresh ticket and connects with it; reports the outcome to the machine.
    func runAttempt(_ id: Int) async {
        defer { attemptTasks[id] = nil }
        do {
            let ticket = try await api.webSocketTicket()
            let connection = try await connector.connect(ticket: ticket)
            connections[id] = connection
            apply(.attemptSucceeded(id: id))
        } catch {
            apply(.attemptFailed(id: id, AttemptFailure(error)))
        }
    }

    /// Moves `connection`'s events and malformed-frame reports into the delegate queue, in
    /// order, and tells the machine when the socket has ended.
    func startPump(_ id: Int, _ connection: any RealtimeConnection) {
        let lane = self.lane
        pumps[id] = Task {
            for await update in connection.updates {
                switch update {
                case .event(let event): lane.yield(.event(event))
                case .malformedFrame(let reason, let byteCount): lane.yield(.malformedFrame(reason: reason, byteCount: byteCount))
                case .closed: break
                }
            }
            self.connectionEnded(id)
        }
    }

    private func connectionEnded(_ id: Int) {
        pumps[id] = nil
        connections[id] = nil
        apply(.connectionEnded(id: id))
    }
}
