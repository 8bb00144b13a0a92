/// One change to an observed timeline (``TimelineUpdates``).
public enum TimelineUpdate: Sendable, Equatable {
    /// Show exactly these items (the newest of the channel, oldest first): the first update,
    /// and again whenever the observer fell behind and changes were lost.
    case reset([TimelineItem])
    /// The changes of one commit, in order. Apply ``TimelineDiff/inserted(_:)`` as an upsert
    /// by message id (an item the last reset already showed can be announced once more).
    case changes([TimelineDiff])
}

/// One row's change in a ``TimelineUpdate``.
public enum TimelineDiff: Sendable, Equatable {
    /// A new row, placed by `(createdAt, messageID)`.
    case inserted(TimelineItem)
    /// A row's new state (decrypted, edited, deleted, refused, marked removed from the server…).
    case updated(TimelineItem)
    /// The row left the timeline: a local echo (``TimelineItem/isLocalEcho``) the server took
    /// — the same update inserts the posted row, whose ``TimelineItem/localID`` is the echo's —
    /// or that was cancelled; or a message that turned out to be a tombstone or an announcement,
    /// never a message to show. An id the app does not show is ignored.
    case removed(messageID: MessageID)
}

/// A channel's timeline as an app renders it (``Account/timelineUpdates(channelID:limit:)``):
/// a snapshot, then one ``TimelineUpdate/changes(_:)`` per committed batch that touched the
/// channel, each with the rows as the store holds them after that commit. A reader that falls
/// behind is never left with a gap: the lost changes are replaced by a fresh
/// ``TimelineUpdate/reset(_:)``. The sequence ends when the account shuts down.
///
/// Our own message shows at once as a local echo (``TimelineItem/isLocalEcho``): inserted when
/// queued, updated as its outbox state moves (sending, failed, queued again), and on the
/// server's 201 removed in the same update that inserts the posted row (both carry the same
/// ``TimelineItem/localID``); a cancelled one is removed.
public struct TimelineUpdates: AsyncSequence, Sendable {
    /// The element type.
    public typealias Element = TimelineUpdate

    let channelID: ChannelID
    let limit: Int
    let reader: TimelineReader
    let signals: AsyncStream<TimelineSignal>

    /// Reads the next update.
    public struct AsyncIterator: AsyncIteratorProtocol {
        let channelID: ChannelID
        let limit: Int
        let reader: TimelineReader
        var signals: AsyncStream<TimelineSignal>.AsyncIterator
        var started = false

        /// The next update; nil once the account shut down.
        /// - Throws: key store errors (reading the rows).
        public mutating func next() async throws -> TimelineUpdate? {
            if !started {
                started = true
                return .reset(try await reader.page(channelID: channelID, limit: limit))
            }
            while let signal = await signals.next() {
                switch signal {
                case .gap:
                    return .reset(try await reader.page(channelID: channelID, limit: limit))
                case .changes(let changes):
                    let diffs = try await diffs(for: changes.filter { $0.channelID == channelID })
                    if !diffs.isEmpty { return .changes(diffs) }
                }
            }
            return nil
        }

        /// One diff per message the changes touch, in order of first mention, read back from
        /// the store as it is after the commit.
        private func diffs(for changes: [TimelineChange]) async throws -> [TimelineDiff] {
            var order: [String] = []
            var seen: Set<String> = []
            var inserted: Set<String> = []
            for change in changes {
                if seen.insert(change.messageID.rawValue).inserted { order.append(change.messageID.rawValue) }
                if change.kind == .inserted { inserted.insert(change.messageID.rawValue) }
            }
            var diffs: [TimelineDiff] = []
            for id in order {
                if let item = try await reader.item(messageID: MessageID(stored: id)) {
                    diffs.append(inserted.contains(id) ? .inserted(item) : .updated(item))
                } else if !inserted.contains(id) {
                    diffs.append(.removed(messageID: MessageID(stored: id)))
                }
            }
            return diffs
        }
    }

    /// An iterator (one per observation: iterate a ``TimelineUpdates`` once).
    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(channelID: channelID, limit: limit, reader: reader, signals: signals.makeAsyncIterator())
    }
}
