/// What ``KeyStore/markSent(localID:serverMessageID:createdAt:senderUserID:senderDeviceID:)``
/// put in the timeline for a message the server took.
package enum SentRow: Sendable, Equatable {
    /// Nothing: the entry was no posted message (a key distribution).
    case none
    /// Our own message, shown in the timeline.
    case message
    /// Our own tombstone or announcement, a control row never shown; a tombstone names the
    /// message (server id) it erased here, if it found it.
    case control(erased: String?)
}
