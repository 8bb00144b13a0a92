/// Pages a channel's history backwards without skipping rows tied at a page boundary.
///
/// The server's `before` is strictly older-than, so messages sharing the oldest timestamp
/// of a page but not on it would be skipped. The pager asks for `before = oldest + 1 µs`
/// (overlapping the boundary), drops ids it has already returned, and widens the page when
/// the overlap alone would fill it.
public struct MessageHistoryPager: Sendable {
    private let server: any ChatServerAPI
    private let channelID: ChannelID
    private let pageSize: Int
    private var cursor: ServerTimestamp?
    private var seenAtCursor: Set<MessageID> = []
    private var exhausted = false

    /// A pager over `channelID`, newest first, `pageSize` (1…100) messages per request. With
    /// `start`, paging begins at that time instead of the newest message: messages at `start`
    /// itself are included (it may be tied with ones the caller has not seen).
    public init(server: any ChatServerAPI, channelID: ChannelID, pageSize: Int = 50, from start: ServerTimestamp? = nil) {
        self.server = server
        self.channelID = channelID
        self.pageSize = min(max(pageSize, 1), 100)
        self.cursor = start
    }

    /// `true` once the oldest message has been returned (a page said `has_more: false`).
    public var reachedStart: Bool { exhausted }

    /// The next older batch, oldest → newest, never repeating a message; empty when done.
    /// - Throws: ``ServerError`` from the server.
    public mutating func nextPage() async throws -> [ServerMessage] {
        while !exhausted {
            var wanted = min(pageSize + seenAtCursor.count, 100)
            if wanted <= seenAtCursor.count { wanted = 100 }
            // A page too large for the client is read in smaller pages (a large message costs
            // its channel smaller requests, never its history).
            let (page, limit) = try await server.fittingMessages(channelID: channelID, before: cursor?.adding(microseconds: 1), limit: wanted)
            let fresh = page.messages.filter { !seenAtCursor.contains($0.id) }.sorted(by: ServerMessage.timelineOrder)
            guard let oldest = fresh.first else {
                if page.hasMore, page.messages.count == limit, limit == 100 || limit < wanted, let boundary = cursor {
                    // More rows share the boundary time than one page holds (100, or fewer when
                    // the page had to shrink): give up on the tie, step past it.
                    cursor = boundary.adding(microseconds: -1)
                    seenAtCursor = []
                    continue
                }
                exhausted = true
                return []
            }
            if oldest.createdAt != cursor { seenAtCursor = [] }
            cursor = oldest.createdAt
            seenAtCursor.formUnion(fresh.filter { $0.createdAt == oldest.createdAt }.map { $0.id })
            if !page.hasMore { exhausted = true }
            return fresh
        }
        return []
    }
}
