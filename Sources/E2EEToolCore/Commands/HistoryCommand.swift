import ArgumentParser
import E2EEMessaging
import Foundation

/// `e2ee-tool history <channel-id> [--limit N]`: catch the channel up, then print its timeline
/// from the store.
struct HistoryCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "history",
        abstract: "Catch up with the server, then print a channel's messages, oldest first.",
        discussion: """
            The channel is paged back to what the store already holds and what is new is \
            decrypted and stored (the account's sync of that channel: other channels, and \
            whatever fails in them, do not hold it up); then the newest --limit messages of the \
            channel are printed from the store, oldest first, with markers for edited, deleted, \
            pending (waiting for a key) and undecryptable messages. --json prints one array.
            """)

    @OptionGroup var options: GlobalOptions

    @Argument(help: "The channel's id.")
    var channelID: String

    @Option(name: .long, help: "How many messages: the newest N, printed oldest first.")
    var limit = 50

    /// The largest `--limit`.
    static let maximumLimit = 100_000
    /// Messages read from the store at a time.
    static let pageSize = 200

    func validate() throws {
        guard (1...Self.maximumLimit).contains(limit) else { throw ValidationError("--limit must be between 1 and \(Self.maximumLimit)") }
    }

    func run() async throws {
        let context = ToolContext(options: options)
        let channelID = try ChannelArgument.checked(self.channelID)
        let opened = try await context.openAccount()
        let limit = self.limit
        let items = try await opened.using { account in
            let channel = try await account.channel(id: channelID)
            context.console.progress("catching up…")
            let events = account.events()
            try await account.sync(channelID: channel.id)
            await account.waitForOutbox()  // messages queued while the server was down go out first
            // Members' announcements read during the catch-up (a prompt, or our own device's
            // decision applied here) go to standard error, beside the progress lines.
            for notice in await Self.announcements(in: events, channelID: channel.id) { context.console.progress(notice.line()) }
            return try await Self.newest(limit, in: channel.id.rawValue, of: account)
        }
        context.logger.debug("history read", metadata: ["channel": "\(channelID)", "messages": "\(items.count)"])
        let output = items.map { MessageOutput($0) }
        try context.console.result(output) {
            output.isEmpty ? "no messages" : output.map { $0.line(showingChannel: false) }.joined(separator: "\n")
        }
    }

    /// The announcements of `channelID` already in `events` (read without waiting for more).
    static func announcements(in events: AsyncStream<AccountEvent>, channelID: ChannelID) async -> [AnnouncementNotice] {
        let collector = Task {
            var found: [AnnouncementNotice] = []
            for await event in events {
                if case .announcement(let announcement) = event, announcement.channelID == channelID { found.append(AnnouncementNotice(announcement)) }
            }
            return found
        }
        try? await Task.sleep(for: .milliseconds(20))  // let the collector take what is buffered
        collector.cancel()
        return await collector.value
    }

    /// The newest `limit` messages of `channelID`, oldest first.
    static func newest(_ limit: Int, in channelID: String, of account: Account) async throws -> [TimelineItem] {
        var pages: [[TimelineItem]] = []
        var count = 0
        var before: TimelinePosition?
        while count < limit {
            let wanted = min(pageSize, limit - count)
            let page = try await account.timeline(channelID: ChannelID(channelID), before: before, limit: wanted)
            if page.isEmpty { break }
            pages.append(page)
            count += page.count
            if page.count < wanted { break }
            before = page.first?.cursor
        }
        return pages.reversed().flatMap { $0 }
    }
}

/// Channel ids as the tool accepts them.
enum ChannelArgument {
    /// The channel `text` names; anything that is not a UUID cannot name a channel.
    /// - Throws: ``ToolError`` (not found).
    static func checked(_ text: String) throws -> ChannelID {
        guard UUID(uuidString: text) != nil else { throw ToolError(.notFound, "unknown channel \(text) (a channel id is a UUID)") }
        return ChannelID(text)
    }
}
