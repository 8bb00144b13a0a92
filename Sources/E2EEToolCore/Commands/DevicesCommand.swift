import ArgumentParser
import E2EEMessaging

/// `e2ee-tool devices [list] <user-id>`, `devices pending`, `devices approve <device-id>`,
/// `devices decline <device-id>` (docs/spec/protocol.md §5 "Who receives keys"), `devices
/// remove <device-id>` (§10.14).
struct DevicesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "devices",
        abstract: "A user's devices (the default), the devices held back from channels' keys (list, approve, decline), and removing our own.",
        subcommands: [DevicesListCommand.self, Pending.self, Approve.self, Decline.self, DevicesConfirmCommand.self, DevicesRemoveCommand.self],
        defaultSubcommand: DevicesListCommand.self
    )

    /// Approves or declines `deviceID` through `decide`, waits for the decision's announcements
    /// to be posted, and prints the channels it applied in as `decision`.
    static func decide(_ decision: String, deviceID: DeviceID, options: GlobalOptions,
                       _ decide: @escaping @Sendable (Account, DeviceID) async throws -> [ChannelID]) async throws {
        let context = ToolContext(options: options)
        let opened = try await context.openAccount()
        let channels = try await opened.using { account in
            let channels = try await decide(account, deviceID)
            await account.waitForOutboxToSettle()  // the decision's announcements
            return channels
        }.map(\.rawValue)
        let result = DeviceDecisionResult(deviceID: deviceID.rawValue, decision: decision, channels: channels)
        try context.console.result(result) { "\(decision): device \(deviceID) in \(channels.joined(separator: ", "))" }
    }

    /// `devices pending`.
    struct Pending: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "The devices held back from channels' keys by the recipient policy, waiting for approve or decline.")

        @OptionGroup var options: GlobalOptions

        func run() async throws {
            let context = ToolContext(options: options)
            let opened = try await context.openAccount()
            let held = try await opened.using { try await $0.pendingRecipients() }.map(RecipientEntry.init)
            try context.console.result(PendingResult(pending: held)) {
                held.isEmpty ? "no held device"
                    : held.map { "\($0.deviceID)  user \($0.userID)  channel \($0.channelID ?? "-")" }.joined(separator: "\n")
            }
        }
    }

    /// `devices approve <device-id>`.
    struct Approve: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Approve a held or declined device: it gets keys from now on (a group's current state), never earlier ones.")

        @OptionGroup var options: GlobalOptions

        @Argument(help: "The device's id.")
        var deviceID: String

        func run() async throws {
            try await DevicesCommand.decide("approved", deviceID: DeviceID(deviceID), options: options) { try await $0.approveDevice($1) }
        }
    }

    /// `devices decline <device-id>`.
    struct Decline: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Decline a device: it gets no keys in any channel until approved (kept across restarts).")

        @OptionGroup var options: GlobalOptions

        @Argument(help: "The device's id.")
        var deviceID: String

        func run() async throws {
            try await DevicesCommand.decide("declined", deviceID: DeviceID(deviceID), options: options) { try await $0.declineDevice($1) }
        }
    }
}

/// `devices pending` as JSON.
struct PendingResult: Encodable {
    let pending: [RecipientEntry]
}

/// `devices approve|decline` as JSON.
struct DeviceDecisionResult: Encodable {
    let deviceID: String
    let decision: String
    let channels: [String]
    enum CodingKeys: String, CodingKey { case deviceID = "device_id", decision, channels }
}
