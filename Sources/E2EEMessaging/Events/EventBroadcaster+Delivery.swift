import E2EEKeyStore

/// How an outbox entry's delivery is published: its ``DeliveryChange`` (saying what the entry
/// is for) and, for a message the app sent that is not posted yet, the change of its local echo
/// (``TimelineItem/isLocalEcho``) in the same commit, so that an observed timeline shows the
/// echo come, change and go with the outbox state.
extension EventBroadcaster {
    /// `entry` moved to `state` (`serverID` once known). `isNew`: the entry was just queued, its
    /// echo enters the timeline. `changes`: timeline changes of the same commit, after the
    /// echo's (the posted row, when `state` is `.sent`).
    func publishDelivery(of entry: OutboxMessage, _ state: OutboxState, serverID: String? = nil, isNew: Bool = false, changes: [TimelineChange] = []) {
        let channelID = ChannelID(stored: entry.channelID)
        let purpose = entry.purpose
        var timeline: [TimelineChange] = []
        if purpose == .message, state != .delivered {
            timeline.append(TimelineChange(channelID: channelID, messageID: MessageID(stored: entry.localID), kind: isNew ? .inserted : .localEcho))
        }
        timeline += changes
        let delivery = AccountEvent.delivery(DeliveryChange(localID: OutboxEntryID(stored: entry.localID), channelID: channelID, state: state,
                                                            serverMessageID: serverID.map { MessageID(stored: $0) }, purpose: purpose))
        publish(committed: timeline.isEmpty ? [delivery] : [delivery, .timeline(timeline)])
    }

    /// `entry` was cancelled before it went out: its local echo leaves the timeline.
    func publishCancelled(_ entry: OutboxMessage) {
        guard entry.purpose == .message else { return }
        publish(.timeline([TimelineChange(channelID: ChannelID(stored: entry.channelID), messageID: MessageID(stored: entry.localID), kind: .localEcho)]))
    }
}
