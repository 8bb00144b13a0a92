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
    /// order, and tells the machine when the socket has ended. When
    /// ``ConnectionPolicy/maxQueuedEvents`` are already waiting for the delegate, the socket is
    /// closed and what it still sends is dropped (the reconnect catches up).
    func startPump(_ id: Int, _ connection: any RealtimeConnection) {
        let lane = self.lane
        let queued = self.queuedEvents
        let limit = policy.maxQueuedEvents
        pumps[id] = Task {
            var overflowed = false
            // The batch of new messages rung last, while nothing else came after it.
            var openBatch: FrameBatch?
            for await update in connection.updates {
                let call: DelegateCall
                var newMessage: ServerMessage?
                switch update {
                case .event(let event):
                    if case .messageNew(let message) = event {
                        self.socketDelivered(messageID: message.id)
                        newMessage = message
                    }
                    let checkEcho = self.isEchoCheckEcho(event)
                    if Self.provesFanOut(event) { self.apply(.socketHeard(id: id, checkEcho: checkEcho)) }
                    if checkEcho { continue }  // ours alone: nothing for the delegate
                    call = .event(event)
                case .malformedFrame(let reason, let byteCount): call = .malformedFrame(reason: reason, byteCount: byteCount)
                case .closed: continue
                }
                guard !overflowed else { continue }
                guard queued.enter(limit: limit) else {
                    overflowed = true
                    await connection.close()
                    continue
                }
                guard let newMessage else {
                    openBatch = nil  // what comes after this call goes after it
                    lane.yield(call)
                    continue
                }
                if let batch = openBatch, batch.append(newMessage) { continue }
                let batch = FrameBatch(newMessage)
                openBatch = batch
                lane.yield(.messages(batch))
            }
            self.connectionEnded(id)
        }
    }

    /// Whether `event` is the echo of one of our echo checks.
    private func isEchoCheckEcho(_ event: RealtimeEvent) -> Bool {
        if case .typing(_, let channelID, started: false) = event { return channelID == echoCheckChannel }
        return false
    }

    /// Whether `event` came through the server's fan-out (everything but the direct answer to a
    /// frame it could not read), so that it proves the socket is not deaf.
    private static func provesFanOut(_ event: RealtimeEvent) -> Bool {
        if case .serverError = event { return false }
        return true
    }

    private func connectionEnded(_ id: Int) {
        pumps[id] = nil
        openedAt[id] = nil
        connections[id] = nil
        apply(.connectionEnded(id: id))
    }
}
