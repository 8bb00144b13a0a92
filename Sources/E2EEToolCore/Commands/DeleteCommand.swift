import ArgumentParser
import E2EEMessaging

/// `e2ee-tool delete <message-id>`.
struct DeleteCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "delete",
        abstract: "Delete one of this store's own messages for everyone: post its encrypted tombstone, then the server's DELETE.",
        discussion: """
            Only the sender deletes (docs/spec/protocol.md §6.7): the tombstone goes through the \
            outbox like a message, and every device that reads it erases the message, including \
            devices that were away. Once the server took the tombstone the message is erased here \
            and the server's copy is deleted (best effort). Exit codes as for send: 13 when the \
            server cannot be reached (the tombstone stays queued), 10 when it was refused.
            """)

    @OptionGroup var options: GlobalOptions

    @Argument(help: "The server id of one of this store's own messages.")
    var messageID: String

    func run() async throws {
        let context = ToolContext(options: options)
        let opened = try await context.openAccount()
        let messageID = MessageID(self.messageID)
        let entry = try await opened.using { account in
            let queued = try await account.delete(messageID)
            if queued.state != .failed { context.console.progress("deleting…") }
            await account.waitForOutboxToSettle()
            let all = try await account.outboxEntries(states: Set(OutboxState.allCases))
            return all.first { $0.localID == queued.localID }.map(SendResult.init) ?? SendResult(queued)
        }
        let result = entry
        let line = switch entry.outboxState {
        case .sent, .delivered: "deleted: message \(messageID) (tombstone \(entry.serverMessageID ?? "?") in channel \(entry.channelID))"
        case .failed: "failed: \(entry.lastError ?? "unknown reason") (local id \(entry.localID); it stays in the outbox)"
        case .queued: "queued: the server could not be reached; the tombstone goes out with a later send, history or listen on this store"
        case .sending: "sending: not confirmed yet (local id \(entry.localID); it stays in the outbox)"
        }
        try context.console.result(result) { line }
        if entry.outboxState == .queued {
            throw ToolError(.queued, "the tombstone is queued: the server could not be reached", resultWritten: true)
        }
        if entry.outboxState == .failed || entry.outboxState == .sending {
            throw ToolError(.notSent, "the tombstone was not sent (state \(entry.state))", resultWritten: true)
        }
    }
}
