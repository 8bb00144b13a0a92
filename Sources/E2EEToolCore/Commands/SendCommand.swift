import ArgumentParser
import E2EEMessaging

/// `e2ee-tool send <channel-id> <text>`.
struct SendCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "send",
        abstract: "Encrypt a message for a channel, post it through the outbox, and print its delivery state.",
        discussion: """
            Waits until the outbox has nothing left to post. "sent" means the server accepted it; \
            "delivered" needs our own echo, which a later history or listen on this store sees. A \
            message the server refused stays in the outbox as failed and the exit code is 10. While \
            the server cannot be reached the message stays queued (exit 13): a later send, history \
            or listen on this store sends it, in order; see also the outbox command. When every \
            recipient device is held by the recipient policy, nothing is sent and the exit code is \
            12. A DM to a user whose user key is unresolved (conflicted, without a verified device, \
            or a key change waiting: user-key show) sends nothing and exits 16; in a group such users \
            get nothing and are reported, and the exit code is 16 only when no other device got the \
            message. Recipients held, newly surfaced, removed or unresolved are printed first (and \
            under "recipients" with --json).
            """)

    @OptionGroup var options: GlobalOptions

    @Argument(help: "The channel's id.")
    var channelID: String

    @Argument(help: "The message text.")
    var text: String

    func run() async throws {
        let context = ToolContext(options: options)
        let opened = try await context.openAccount()
        let (channelID, text) = (self.channelID, self.text)
        let (entry, report) = try await opened.using { account in
            let report = try await account.send(text: text, to: ChannelID(channelID))
            context.logger.debug("queued", metadata: ["local_id": "\(report.localID)", "channel": "\(report.channelID)"])
            if report.state != .failed { context.console.progress("sending…") }
            await account.waitForOutboxToSettle()
            let all = try await account.outboxEntries(states: Set(OutboxState.allCases))
            return (all.first { $0.localID == report.localID }.map(SendResult.init) ?? SendResult(report), report)
        }
        var result = entry
        result.recipients = RecipientOutput(report.recipients, channelID: report.channelID)
        let stateLine = switch entry.outboxState {
        case .sent, .delivered: "\(entry.state): message \(entry.serverMessageID ?? "?") (\(entry.contentType)) in channel \(entry.channelID)"
        case .failed: "failed: \(entry.lastError ?? "unknown reason") (local id \(entry.localID); it stays in the outbox)"
        case .queued: "queued: the server could not be reached; it goes out with a later send, history or listen on this store (local id \(entry.localID))"
        case .sending: "sending: not confirmed yet (local id \(entry.localID); it stays in the outbox)"
        }
        let lines = (result.recipients?.lines ?? []) + [stateLine]
        try context.console.result(result) { lines.joined(separator: "\n") }
        if report.everyRecipientHeld {
            throw ToolError(.recipientsHeld, "every recipient device is held: nothing was sent", resultWritten: true)
        }
        let unresolved = report.recipients.unresolvedUsers
        if !unresolved.isEmpty, entry.outboxState == .failed || report.recipients.recipientCount == 0 {
            // A DM to an unresolved user (nothing posted), or a group where nobody else got it either.
            let users = unresolved.map(\.userID.rawValue).joined(separator: ", ")
            throw ToolError(.userKeyUnresolved, "nothing went to \(users): their user key is unresolved (user-key show)", resultWritten: true)
        }
        if entry.outboxState == .queued {
            throw ToolError(.queued, "the message is queued: the server could not be reached", resultWritten: true)
        }
        if entry.outboxState == .failed || entry.outboxState == .sending {
            throw ToolError(.notSent, "the message was not sent (state \(entry.state))", resultWritten: true)
        }
    }
}

/// `send` as JSON.
struct SendResult: Encodable {
    let localID: String
    let channelID: String
    let state: String
    let serverMessageID: String?
    let contentType: String
    let attempts: Int
    let lastError: String?
    /// What the recipient check surfaced (docs/spec/protocol.md §5).
    var recipients: RecipientOutput?

    /// The delivery state, typed.
    let outboxState: OutboxState

    init(_ entry: OutboxItem) {
        localID = entry.localID.rawValue
        channelID = entry.channelID.rawValue
        outboxState = entry.state
        state = entry.state.rawValue
        serverMessageID = entry.serverMessageID?.rawValue
        contentType = entry.contentType
        attempts = entry.attempts
        lastError = entry.lastError
    }

    /// From the report alone (the entry is no longer in the outbox).
    init(_ report: SendReport) {
        localID = report.localID.rawValue
        channelID = report.channelID.rawValue
        outboxState = report.state
        state = report.state.rawValue
        serverMessageID = report.serverMessageID?.rawValue
        contentType = ""
        attempts = 0
        lastError = report.failureReason
    }

    enum CodingKeys: String, CodingKey {
        case localID = "local_id", channelID = "channel_id", state, serverMessageID = "server_message_id"
        case contentType = "content_type", attempts, lastError = "last_error", recipients
    }
}
