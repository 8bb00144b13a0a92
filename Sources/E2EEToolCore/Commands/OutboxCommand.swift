import ArgumentParser
import E2EEMessaging

/// `e2ee-tool outbox [list]`, `outbox retry <local-id>`, `outbox cancel <local-id>`.
struct OutboxCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "outbox",
        abstract: "Messages not yet sent: list them with their states (the default), retry or cancel one.",
        discussion: """
            queued: waiting to be posted (while the server cannot be reached, a later send, \
            history or listen on this store posts it, in order); failed: refused by the server or \
            answered with errors three times (retry or cancel it).
            """,
        subcommands: [List.self, Retry.self, Cancel.self],
        defaultSubcommand: List.self
    )

    /// `outbox list`: every entry not yet sent, from the store (no server needed).
    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the entries not yet sent, with their states.")

        @OptionGroup var options: GlobalOptions

        func run() async throws {
            let context = ToolContext(options: options)
            let (store, _) = try context.openExistingStore()
            defer { try? store.close() }
            let entries = try await OutboxItem.entries(in: store).map { OutboxEntryOutput($0) }
            try context.console.result(entries) {
                entries.isEmpty ? "the outbox is empty" : entries.map(\.line).joined(separator: "\n")
            }
        }
    }

    /// `outbox retry <local-id>`: a failed entry is queued again (re-encrypted when it never
    /// could be); a queued one is tried now. Waits for the outbox, like `send`.
    struct Retry: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Send a failed or waiting entry again now, and print its state.")

        @OptionGroup var options: GlobalOptions

        @Argument(help: "The entry's local id (from `outbox`).")
        var localID: String

        func run() async throws {
            let context = ToolContext(options: options)
            let opened = try await context.openAccount()
            let localID = OutboxEntryID(self.localID)
            let entry = try await opened.using { account in
                guard let current = try await account.outboxEntries().first(where: { $0.localID == localID }) else {
                    throw ToolError(.notFound, "no unsent outbox entry \(localID)")
                }
                if current.state == .failed {
                    try await account.retry(localID)
                } else {
                    try await account.resumeOutbox()
                }
                context.console.progress("sending…")
                await account.waitForOutbox()
                return try await account.outboxEntries(states: Set(OutboxState.allCases)).first { $0.localID == localID } ?? current
            }
            let output = OutboxEntryOutput(entry)
            try context.console.result(output) { output.line }
            switch entry.state {
            case .sent, .delivered: return
            case .queued: throw ToolError(.queued, "the entry is still queued: the server could not be reached", resultWritten: true)
            case .failed, .sending: throw ToolError(.notSent, "the entry was not sent (state \(entry.state.rawValue))", resultWritten: true)
            }
        }
    }

    /// `outbox cancel <local-id>`: a queued or failed entry is removed and never posted.
    struct Cancel: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Remove a queued or failed entry; it is never posted.")

        @OptionGroup var options: GlobalOptions

        @Argument(help: "The entry's local id (from `outbox`).")
        var localID: String

        func run() async throws {
            let context = ToolContext(options: options)
            let opened = try await context.openAccount()
            let localID = self.localID
            let removed: OutboxItem
            do {
                removed = try await opened.using { try await $0.cancelOutboxEntry(OutboxEntryID(localID)) }
            } catch MessagingError.unknownOutboxEntry {
                throw ToolError(.notFound, "no queued or failed outbox entry \(localID) (one being sent or already sent cannot be cancelled)")
            }
            let output = OutboxEntryOutput(removed, state: "cancelled")
            try context.console.result(output) { output.line }
        }
    }
}

/// One outbox entry as `outbox` prints it (never its plaintext or content).
struct OutboxEntryOutput: Encodable {
    let localID: String
    let channelID: String
    let kind: String
    let state: String
    let waitingToBeEncrypted: Bool
    let attempts: Int
    let lastError: String?
    let serverMessageID: String?

    init(_ entry: OutboxItem, state: String? = nil) {
        localID = entry.localID.rawValue
        channelID = entry.channelID.rawValue
        kind = entry.kind.rawValue
        self.state = state ?? entry.state.rawValue
        waitingToBeEncrypted = entry.isWaitingToBeEncrypted
        attempts = entry.attempts
        lastError = entry.lastError
        serverMessageID = entry.serverMessageID?.rawValue
    }

    /// One line: id, state, kind, channel, and why it waits or failed.
    var line: String {
        var text = "\(localID)  \(state)  \(kind) in \(channelID)"
        if let serverMessageID { text += " (message \(serverMessageID))" }
        text += ", \(attempts) attempt\(attempts == 1 ? "" : "s")"
        if waitingToBeEncrypted { text += " (waiting to be encrypted)" }
        if let lastError { text += ": \(lastError)" }
        return text
    }

    enum CodingKeys: String, CodingKey {
        case localID = "local_id", channelID = "channel_id", kind, state, waitingToBeEncrypted = "waiting_to_be_encrypted", attempts
        case lastError = "last_error", serverMessageID = "server_message_id"
    }
}
