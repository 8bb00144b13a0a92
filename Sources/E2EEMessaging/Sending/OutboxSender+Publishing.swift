import E2EEKeyStore

/// What the outbox tells the app: delivery states, and the timeline row a delivery changes.
extension OutboxSender {
    /// `entry` moved to `state` (`serverID` once known): its delivery event and, while it is a
    /// local echo, the echo's timeline change; `changes` go in the same commit.
    func publish(_ entry: OutboxMessage, _ state: OutboxState, serverID: String?, changes: [TimelineChange] = []) {
        events.publishDelivery(of: entry, state, serverID: serverID, changes: changes)
    }

    /// `entry` was delivered (its copy came back): the delivery event and, when the message is
    /// a row of the timeline, that row's change, in one commit — an observed timeline
    /// (``TimelineUpdates``) shows the tick move from sent to delivered.
    func publishDelivered(_ entry: OutboxMessage, serverID: String) async {
        let channelID = ChannelID(stored: entry.channelID)
        let delivery = AccountEvent.delivery(DeliveryChange(localID: OutboxEntryID(stored: entry.localID), channelID: channelID, state: .delivered,
                                                            serverMessageID: MessageID(stored: serverID), purpose: entry.purpose))
        guard entry.kind == .message, (try? await store.message(id: serverID)) != nil else {
            events.publish(delivery)
            return
        }
        events.publish(committed: [delivery, .timeline([TimelineChange(channelID: channelID, messageID: MessageID(stored: serverID), kind: .delivered)])])
    }
}
