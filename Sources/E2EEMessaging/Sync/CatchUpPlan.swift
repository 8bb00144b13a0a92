@_spi(StoreInternals) import E2EEKeyStore

/// Which channels one catch-up reads and in which order (docs/spec/sync.md guarantee 10): the
/// channel the caller asked for first, then the most recently active (the newest verified
/// mark first), channels never read last in the server's order. One catch-up reads at most
/// ``channelsPerCatchUp`` channels and leaves the rest for ``postponement`` later, so that a
/// flood of channels (anyone can add a user to any number) stays within the server's rate
/// limit (300 requests per minute per IP, docs/spec/server-api.md §A1.4) and delays the
/// channels at the end of the order instead of failing them all.
enum CatchUpPlan {
    /// Channels read by one catch-up (each at least one request).
    static let channelsPerCatchUp = 100
    /// How long the channels one catch-up left wait for the next, in microseconds (twice per
    /// minute: about 200 channel reads a minute, leaving room for pages, sends and keys).
    static let postponement: Int64 = 30_000_000

    /// `channels` in the order they are read.
    /// - Throws: key store errors.
    static func ordered(_ channels: [ChatChannel], first asked: ChannelID?, store: KeyStore) async throws -> [ChatChannel] {
        var ranked: [(channel: ChatChannel, asked: Bool, mark: Int64, index: Int)] = []
        for (index, channel) in channels.enumerated() {
            let mark = try await store.syncCursor(channelID: channel.id.rawValue)?.newest?.createdAt.microseconds ?? .min
            ranked.append((channel, channel.id == asked, mark, index))
        }
        ranked.sort { lhs, rhs in
            if lhs.asked != rhs.asked { return lhs.asked }
            if lhs.mark != rhs.mark { return lhs.mark > rhs.mark }
            return lhs.index < rhs.index
        }
        return ranked.map(\.channel)
    }
}
