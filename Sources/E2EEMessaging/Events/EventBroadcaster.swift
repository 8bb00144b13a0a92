/// Fans account events out to any number of subscribers, each an `AsyncStream` that buffers
/// up to `bufferLimit` events. A slow app never stalls the engine: a subscriber that does not
/// read loses its oldest events — and is then told so, never silently: a
/// ``AccountEvent/reloadNeeded`` follows the loss (one per gap: while that signal is still
/// unread, further losses add none), after which the app re-reads what it shows from the
/// store (matrix-rust-sdk's timeline does the same with `VectorDiff::Reset`). Thread-safe; the
/// engine calls ``publish(_:)`` from any task.
@_spi(Benchmarks) public final class EventBroadcaster: Sendable {
    private let state = SubscriberTable<Subscriber<AccountEvent>>()
    private let timelineObservers = SubscriberTable<Subscriber<TimelineSignal>>()
    private let bufferLimit: Int
    /// Wakes the readers of ``Account/pendingRecipientUpdates()`` whenever a published event may
    /// have changed who is held (and when the account decides about a device or member itself).
    let recipientStandings = ChangeSignal()

    /// A broadcaster whose subscribers each buffer up to `bufferLimit` events (at least 2).
    public init(bufferLimit: Int = 10_000) {
        self.bufferLimit = max(2, bufferLimit)
    }

    /// A new subscription: every event published from now on, until the broadcaster finishes
    /// or the consumer stops iterating.
    public func events() -> AsyncStream<AccountEvent> {
        let (stream, continuation) = AsyncStream<AccountEvent>.makeStream(bufferingPolicy: .bufferingNewest(bufferLimit))
        state.add(Subscriber(continuation: continuation, capacity: bufferLimit, gap: .reloadNeeded), endingWith: continuation)
        return stream
    }

    /// Timeline changes grouped by commit, for ``TimelineUpdates`` (a `.gap` after a loss).
    func timelineSignals(bufferLimit: Int = 1_000) -> AsyncStream<TimelineSignal> {
        let limit = max(2, bufferLimit)
        let (stream, continuation) = AsyncStream<TimelineSignal>.makeStream(bufferingPolicy: .bufferingNewest(limit))
        timelineObservers.add(Subscriber(continuation: continuation, capacity: limit, gap: .gap), endingWith: continuation)
        return stream
    }

    /// Delivers `event` to every current subscriber (and a ``AccountEvent/reloadNeeded`` after
    /// it to one whose buffer just lost an event), as a commit of one event.
    public func publish(_ event: AccountEvent) {
        publish(committed: [event])
    }

    /// Delivers the events of one commit, in order, its timeline changes gathered into one
    /// ``AccountEvent/timeline(_:)`` event where the first of them was; timeline observers get
    /// them as one batch too.
    func publish(committed events: [AccountEvent]) {
        let changes = events.flatMap(\.timelineChanges)
        var merged: [AccountEvent] = []
        merged.reserveCapacity(events.count)
        var timelinePlaced = false
        for event in events {
            guard case .timeline = event else {
                merged.append(event)
                continue
            }
            if !timelinePlaced, !changes.isEmpty { merged.append(.timeline(changes)) }
            timelinePlaced = true
        }
        guard !merged.isEmpty else { return }
        state.forEach { subscriber in for event in merged { subscriber.deliver(event) } }
        if merged.contains(where: \.mayChangeRecipientStandings) { recipientStandings.signal() }
        if !changes.isEmpty { timelineObservers.forEach { $0.deliver(.changes(changes)) } }
    }

    /// Ends every subscription.
    public func finish() {
        for subscriber in state.removeAll() { subscriber.continuation.finish() }
        for subscriber in timelineObservers.removeAll() { subscriber.continuation.finish() }
        recipientStandings.finish()
    }
}

extension AccountEvent {
    /// Whether the event reports a change of who is held from keys, or may come with one: a
    /// recipient added (held or not) or removed, a member held, our own decision announced by
    /// another of our devices and applied here, the channel list.
    var mayChangeRecipientStandings: Bool {
        switch self {
        case .identity(.recipientAdded), .identity(.recipientRemoved), .identity(.memberHeld), .channelsChanged:
            true
        case .announcement(let announcement):
            announcement.appliedHere
        default:
            false
        }
    }
}

/// What a timeline observer is sent: one commit's changes, or the news that it lost some.
enum TimelineSignal: Sendable, Equatable {
    /// The timeline changes of one commit, in order.
    case changes([TimelineChange])
    /// Changes were lost (the observer fell behind): reload.
    case gap
}

/// One subscription and what it knows of its reader's progress.
private final class Subscriber<Element: Sendable & Equatable> {
    let continuation: AsyncStream<Element>.Continuation
    private let capacity: Int
    /// What tells the reader it lost elements.
    private let gap: Element
    /// Whether a reload signal is in the buffer, not read yet.
    private var reloadUnread = false
    /// Events yielded after that signal.
    private var sinceReload = 0

    init(continuation: AsyncStream<Element>.Continuation, capacity: Int, gap: Element) {
        self.continuation = continuation
        self.capacity = capacity
        self.gap = gap
    }

    /// Yields `event`; after a loss, yields the reload signal unless one is still unread.
    /// Called under the table's lock.
    func deliver(_ event: Element) {
        let result = continuation.yield(event)
        switch result {
        case .enqueued(let remaining):
            // The buffer holds `capacity - remaining` events; fewer than were yielded since the
            // signal means the reader has taken the signal already.
            if reloadUnread {
                sinceReload += 1
                if capacity - remaining <= sinceReload { reloadUnread = false }
            }
        case .dropped(let lost):
            if lost == gap { reloadUnread = false }
            if reloadUnread {
                sinceReload += 1
            } else {
                _ = continuation.yield(gap)
                reloadUnread = true
                sinceReload = 0
            }
        case .terminated:
            break
        @unknown default:
            break
        }
    }
}
