extension ChatServerAPI {
    /// One page of messages, as ``messages(channelID:before:limit:)``, that fits the client's
    /// cap on an answer's size (docs/spec/sync.md §6): when the answer is too large
    /// (``ServerError/responseTooLarge(limit:)`` — members may post messages of up to §8.1's
    /// size, and enough of them make a page of 100 larger than any client reads), the same page
    /// is asked for again with half the limit, down to one message. Returns the page and the
    /// limit that was read, which the caller pages on with (`has_more` tells whether more is
    /// there). Only an answer over the cap for a single message is an error: that message
    /// breaks §8.1, and the caller's channel fails on its own, as for any refused page.
    /// - Throws: ``ServerError`` (``ServerError/responseTooLarge(limit:)`` at a limit of one).
    func fittingMessages(channelID: ChannelID, before: ServerTimestamp?, limit: Int) async throws -> (page: MessagePage, limit: Int) {
        var limit = max(1, limit)
        while true {
            do {
                return (try await messages(channelID: channelID, before: before, limit: limit), limit)
            } catch ServerError.responseTooLarge where limit > 1 {
                limit /= 2
            }
        }
    }
}
