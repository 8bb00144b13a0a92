/// Messages a socket delivered in a row, grouped by channel for admission (each group in one
/// call of the account's one way in, so its rows can share a commit): each group in arrival
/// order, the groups in the order of their first message. Order across channels carries no
/// meaning (each channel is received on its own); order within one is kept.
enum MessagesByChannel {
    /// `items` grouped by `channel(item)`.
    static func group<Item>(_ items: [Item], by channel: (Item) -> ChannelID) -> [(channel: ChannelID, items: [Item])] {
        var order: [ChannelID] = []
        var groups: [ChannelID: [Item]] = [:]
        for item in items {
            let id = channel(item)
            if groups[id] == nil { order.append(id) }
            groups[id, default: []].append(item)
        }
        return order.map { ($0, groups[$0] ?? []) }
    }
}
