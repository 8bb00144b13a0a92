import ArgumentParser
import E2EEKeyStore
import E2EEMessaging

extension RecipientPolicy: ExpressibleByArgument {}

/// `e2ee-tool channels policy <channel-id> hold|surface` (docs/spec/protocol.md §5).
struct ChannelPolicyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "policy",
        abstract: "Set a channel's recipient policy: hold (new members and devices get no keys until approved) or surface.")

    @OptionGroup var options: GlobalOptions

    @Argument(help: "The channel's id.")
    var channelID: String

    @Argument(help: "hold or surface.")
    var policy: RecipientPolicy

    func run() async throws {
        let context = ToolContext(options: options)
        let opened = try await context.openAccount()
        let (channel, policy) = (ChannelID(channelID), self.policy)
        try await opened.using { try await $0.setRecipientPolicy(policy, channelID: channel) }
        try context.console.result(ChannelPolicyResult(channelID: channel.rawValue, policy: policy.rawValue)) {
            "channel \(channel): recipient policy \(policy.rawValue)"
        }
    }
}

/// `channels policy` as JSON.
struct ChannelPolicyResult: Encodable {
    let channelID: String
    let policy: String
    enum CodingKeys: String, CodingKey { case channelID = "channel_id", policy }
}
