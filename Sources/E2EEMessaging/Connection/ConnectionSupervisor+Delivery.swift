/// The delegate side: the queued calls, made one at a time (see ``DelegateCall``).
extension ConnectionSupervisor {
    /// Makes one queued call.
    func deliver(_ call: DelegateCall) async {
        switch call {
        case .opened(let connection, let extra):
            let listed = await delegate?.channelsToSubscribe() ?? []
            var seen = Set<ChannelID>()
            for channelID in listed + extra where seen.insert(channelID).inserted {
                // A failure means the socket is gone; its `closed` update follows and is handled.
                try? await connection.subscribe(channelID: channelID)
            }
            await catchUp(.connected)
        case .subscribe(let connection, let channelID):
            try? await connection.subscribe(channelID: channelID)
        case .catchUp(let reason):
            await catchUp(reason)
        case .event(let event):
            await delegate?.received(event)
            queuedEvents.leave()
        case .messages(let batch):
            let messages = batch.take()
            await delegate?.received(messages: messages)
            queuedEvents.leave(messages.count)
        case .malformedFrame(let reason, let byteCount):
            await delegate?.inputRefused(reason: "malformed frame (\(byteCount) bytes): \(reason)")
            queuedEvents.leave()
        case .poll:
            pollQueued = false
            guard let delegate else { return }
            do { try await delegate.poll() } catch { sessionMayHaveEnded(error) }
        case .checkSocket(let id, let openedAt):
            guard let delegate else { return }
            do {
                let missed = try await delegate.socketMissedMessages(connectedFor: .now - openedAt, grace: policy.deafGrace)
                if missed { apply(.socketDeaf(id: id)) }
            } catch {
                sessionMayHaveEnded(error)
            }
        case .watchMembership:
            await delegate?.watchMembership()
        case .sessionEnded:
            await delegate?.sessionEnded()
        case .background(let done):
            await delegate?.willDisconnectForBackground()
            done.resume()
        }
    }

    private func catchUp(_ reason: CatchUpReason) async {
        guard let delegate else { return }
        do { try await delegate.catchUp(reason: reason) } catch { sessionMayHaveEnded(error) }
    }

    /// A delegate's error: ``ServerError/sessionEnded`` stops the supervisor; any other is the
    /// delegate's to report.
    private func sessionMayHaveEnded(_ error: any Error) {
        if let error = error as? ServerError, error == .sessionEnded { apply(.sessionEnded) }
    }

    /// A task that waits for the closing sockets' pumps (at most the drain limit), then queues
    /// the background call and waits for the delegate to have made it.
    func makeBackgroundNotice(draining pumps: [Task<Void, Never>]) -> Task<Void, Never> {
        let sleep = self.sleep
        let limit = policy.closeDrainLimit
        let lane = self.lane
        return Task {
            await withTaskGroup(of: Void.self) { group in
                group.addTask { for pump in pumps { await pump.value } }
                group.addTask { try? await sleep(limit) }
                await group.next()
                group.cancelAll()
            }
            await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
                if case .terminated = lane.yield(.background(done: done)) { done.resume() }
            }
        }
    }
}
