/// The last `capacity` message ids a socket delivered, oldest dropped first: an echo can arrive
/// before the 201 of its own send is processed, and must not then be expected again.
struct RecentMessageIDs: Sendable {
    private let capacity: Int
    private var order: [MessageID] = []
    private var members: Set<MessageID> = []

    /// An empty list keeping at most `capacity` ids (at least 1).
    init(capacity: Int) {
        self.capacity = max(1, capacity)
    }

    /// Whether `id` is among them.
    func contains(_ id: MessageID) -> Bool { members.contains(id) }

    /// Adds `id`, dropping the oldest when full.
    mutating func insert(_ id: MessageID) {
        guard members.insert(id).inserted else { return }
        order.append(id)
        if order.count > capacity {
            members.remove(order.removeFirst())
        }
    }
}
