import ArgumentParser
import E2EECrypto
import E2EEMessaging

/// `e2ee-tool channels [list]`, `channels dm <user-id>`, `channels create <name>`, `channels policy <channel-id> hold|surface`,
/// and the requests and member decisions of ``ChannelRequestCommands``.
struct ChannelsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "channels",
        abstract: "The account's channels: list them (the default), open a DM, create a group.",
        subcommands: [List.self, DirectMessage.self, Create.self, ChannelPolicyCommand.self, ChannelRequestCommands.Requests.self,
                      ChannelRequestCommands.Accept.self, ChannelRequestCommands.Decline.self, ChannelRequestCommands.Add.self,
                      ChannelRequestCommands.Held.self, ChannelRequestCommands.MemberDecision.self],
        defaultSubcommand: List.self
    )

    /// `channels list`: re-read from the server.
    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the channels (re-read from the server).")

        @OptionGroup var options: GlobalOptions

        func run() async throws {
            let context = ToolContext(options: options)
            let opened = try await context.openAccount()
            let channels = try await opened.using { try await $0.refreshChannels() }
            let entries = channels.map(ChannelEntry.init)
            try context.console.result(ChannelsResult(channels: entries)) {
                entries.isEmpty ? "no channels" : entries.map(\.line).joined(separator: "\n")
            }
        }
    }

    /// `channels dm <user>`: a user id or a username.
    struct DirectMessage: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "dm", abstract: "Open the direct-message channel with a user: the one this device already has with them, else the server's (created if needed).")

        @OptionGroup var options: GlobalOptions

        @Argument(help: "The other user's id or username.")
        var user: String

        func run() async throws {
            let context = ToolContext(options: options)
            let opened = try await context.openAccount()
            let user = self.user
            let channel = ChannelEntry(try await opened.using { account in
                try await account.openDirectMessage(with: try await UserArgument.resolve(user, in: account))
            })
            try context.console.result(channel) { channel.line }
        }
    }

    /// `channels create <name> [--member <user-id>]…`.
    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Create a group channel (sender keys) and add members.")

        @OptionGroup var options: GlobalOptions

        @Argument(help: "The group's name.")
        var name: String

        @Option(name: .customLong("member"), help: ArgumentHelp("A user id to add (repeat for several).", valueName: "user-id"))
        var members: [String] = []

        func run() async throws {
            let context = ToolContext(options: options)
            let opened = try await context.openAccount()
            let (name, members) = (self.name, self.members.map { UserID($0) })
            let channel = ChannelEntry(try await opened.using { try await $0.createGroup(name: name, members: members) })
            try context.console.result(channel) { channel.line }
        }
    }
}

/// A channel in output.
struct ChannelEntry: Encodable {
    let id: String
    let name: String?
    let kind: String
    let encryption: String?

    init(_ channel: ChatChannel) {
        id = channel.id.rawValue
        name = channel.name
        kind = channel.isDM ? "dm" : "group"
        encryption = channel.encryption?.rawValue
    }

    var line: String { "\(id)  \(kind)  \(name ?? "-")" + (encryption == nil ? "  (encryption type not supported)" : "") }
}

/// `channels` as JSON.
struct ChannelsResult: Encodable {
    let channels: [ChannelEntry]
}
