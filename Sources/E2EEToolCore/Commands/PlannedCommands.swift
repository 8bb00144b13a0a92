import ArgumentParser

// The receive side and the connection supervisor land later; these commands are in the tree
// (so their names, options and help are fixed) and exit with `notAvailableYet` (7) until then.

/// `e2ee-tool history <channel-id>` (not available yet).
struct HistoryCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "history",
        abstract: "Print a channel's decrypted messages (not available yet: needs the receive side).")

    @OptionGroup var options: GlobalOptions

    @Argument(help: "The channel's id.")
    var channelID: String

    @Option(name: .long, help: "How many messages, newest last.")
    var limit = 50

    func run() async throws {
        // TODO(lead): catch up the channel (receive pipeline), then print the timeline from the store.
        throw ToolError.notAvailableYet("history", "it needs the receive side, which lands later")
    }
}

/// `e2ee-tool listen [<channel-id>]` (not available yet).
struct ListenCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "listen",
        abstract: "Print decrypted messages as they arrive, across reconnects (not available yet: needs the receive side and the connection supervisor).")

    @OptionGroup var options: GlobalOptions

    @Argument(help: "Only this channel (default: every channel).")
    var channelID: String?

    func run() async throws {
        // TODO(lead): start the connection supervisor, subscribe to account events, print messages.
        throw ToolError.notAvailableYet("listen", "it needs the receive side and the connection supervisor, which land later")
    }
}
