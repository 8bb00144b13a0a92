import ArgumentParser
import E2EEMessaging

/// `e2ee-tool listen [<channel-id>] [--count N] [--timeout SECONDS]`.
struct ListenCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "listen",
        abstract: "Stay connected and print decrypted messages as they arrive, across reconnects.",
        discussion: """
            Connects the account (a new ticket per attempt, reconnects with backoff, REST polling \
            when the socket keeps failing, a catch-up on every connect) and prints one line per \
            message as it is stored: new messages, and notices for edits, deletes, messages waiting \
            for a key and undecryptable ones; and one line, starting with "*", per change it learns \
            of members and devices (a new, held, removed or unexpected member or device, an \
            identity change, a linked or unlinked device, a user key adopted, listed, changed or in \
            conflict) and per clock warning. What arrived while nobody listened is printed on the \
            first connect. --json prints one JSON object per line (NDJSON), written as it happens; \
            --verbose adds connection states on standard error. Ends on SIGINT or SIGTERM (exit 0), \
            after --count messages (0), when --timeout passes (0; 11 when --count was not reached), \
            or when the session ends (5).
            """)

    @OptionGroup var options: GlobalOptions

    @Argument(help: "Only this channel (default: every channel).")
    var channelID: String?

    @Option(name: .long, help: "Stop after this many new messages (notices do not count).")
    var count: Int?

    @Option(name: .long, help: ArgumentHelp("Stop after this many seconds.", valueName: "seconds"))
    var timeout: Double?

    func validate() throws {
        if let count, count < 1 { throw ValidationError("--count must be at least 1") }
        if let timeout { try Self.validateTimeout(timeout) }
    }

    /// `--timeout` must be positive and at most a year.
    static func validateTimeout(_ seconds: Double) throws {
        guard seconds > 0, seconds <= 31_536_000 else { throw ValidationError("--timeout must be between 0 and 31536000 seconds") }
    }

    func run() async throws {
        let context = ToolContext(options: options)
        let channelID = try self.channelID.map(ChannelArgument.checked)
        let opened = try await context.openAccount()
        let printer = ListenPrinter(reader: TimelineReader(store: opened.store), console: context.console, channelID: channelID, count: count)
        let ending = try await opened.using { account in
            if let channelID { _ = try await account.channel(id: channelID) }
            context.console.progress("listening" + (channelID.map { " to \($0)" } ?? "") + " (Ctrl-C to stop)…")
            return try await ConnectedSession(account: account, serverURL: opened.serverURL, console: context.console,
                                              verbose: options.verbose, timeout: timeout).run(printer)
        }
        let printed = await printer.printed
        context.logger.debug("listen ended", metadata: ["ending": "\(ending)", "messages": "\(printed)"])
        if let failure = ConnectedSession.failure(for: ending) { throw failure }
        if ending == .timedOut, let count, printed < count {
            throw ToolError(.timedOut, "the timeout passed after \(printed) of \(count) messages")
        }
    }
}

/// Prints what `listen` sees: each timeline event read back from the store.
actor ListenPrinter: AccountEventHandling {
    private let reader: TimelineReader
    private let console: Console
    private let channelID: ChannelID?
    private let count: Int?
    /// New messages printed so far.
    private(set) var printed = 0

    init(reader: TimelineReader, console: Console, channelID: ChannelID?, count: Int?) {
        self.reader = reader
        self.console = console
        self.channelID = channelID
        self.count = count
    }

    func handle(_ event: AccountEvent) async throws -> Bool {
        if case .identity(let identity) = event {
            if let notice = IdentityNotice(identity), channelID == nil || notice.channelID == nil || notice.channelID == channelID?.rawValue {
                try console.record(notice) { notice.line() }
            }
            return true
        }
        if let notice = ClockNotice(event) {
            try console.record(notice) { notice.line() }
            return true
        }
        if let notice = LinkNotice(event) {
            try console.record(notice) { notice.line() }
            return true
        }
        if case .announcement(let announcement) = event {
            if channelID == nil || announcement.channelID == channelID {
                let notice = AnnouncementNotice(announcement)
                try console.record(notice) { notice.line() }
            }
            return true
        }
        for change in event.timelineChanges where channelID == nil || change.channelID == channelID {
            guard try await print(change) else { return false }
        }
        return true
    }

    /// Prints the row `change` names; false once `count` messages were printed.
    private func print(_ change: TimelineChange) async throws -> Bool {
        let kind: String
        switch change.kind {
        case .inserted, .decrypted: kind = "message"
        case .edited: kind = "edited"
        case .deleted: kind = "deleted"
        case .pending: kind = "pending"
        case .undecryptable: kind = "undecryptable"
        case .removedFromServer: kind = "removed_from_server"
        case .backOnServer: kind = "back_on_server"
        case .delivered, .localEcho: return true  // a tick on one of our rows, or our message not posted yet
        }
        // Our own message is printed once posted, not as its local echo.
        guard let item = try await reader.item(messageID: change.messageID), !item.isLocalEcho else { return true }
        let output = MessageOutput(item, event: kind)
        // A new row that cannot be read yet is followed by its `pending` or `undecryptable` change.
        if kind == "message" && !output.isReadable { return true }
        try console.record(output) { output.line(showingChannel: channelID == nil) }
        guard kind == "message" else { return true }
        printed += 1
        if let count, printed >= count { return false }
        return true
    }
}
