import ArgumentParser
import E2EEMessaging
import Foundation

/// `e2ee-tool transfer status | cancel <id>` (docs/spec/protocol.md §11.6): the link transfers
/// this device sends (as the primary) or receives (as a new device).
struct TransferCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "transfer",
        abstract: "The transfers of trust decisions between your primary and a device it linked: see how they stand, cancel one.",
        discussion: """
            A transfer starts when a link completes (link accept / link start) and resumes after a \
            restart of either device, until the new device holds every record the primary sent. \
            It fails after 24 hours without progress or 7 days in all.
            """,
        subcommands: [Status.self, Cancel.self])

    /// `transfer status`.
    struct Status: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List this device's transfers: direction, phase, records done of expected, state.")

        @OptionGroup var options: GlobalOptions

        func run() async throws {
            let context = ToolContext(options: options)
            let opened = try await context.openAccount()
            let lines = try await opened.using { try await $0.transfers() }.map(TransferLine.init)
            try context.console.result(TransferStatusResult(transfers: lines)) {
                lines.isEmpty ? "no transfers" : lines.map(\.text).joined(separator: "\n")
            }
        }
    }

    /// `transfer cancel <id>`.
    struct Cancel: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Cancel a running transfer (the other device is told); what a new device already took stays.")

        @OptionGroup var options: GlobalOptions
        @Argument(help: "The transfer's id (transfer status).") var id: String

        func run() async throws {
            let context = ToolContext(options: options)
            let opened = try await context.openAccount()
            let wanted = id.lowercased()
            try await opened.using { account in
                try await account.cancelTransfer(wanted)
                await account.waitForOutbox()
            }
            try context.console.result(TransferCancelResult(cancelled: wanted)) { "cancelled: transfer \(wanted)" }
        }
    }
}

/// `transfer status` as JSON.
struct TransferStatusResult: Encodable {
    let transfers: [TransferLine]
}

/// `transfer cancel` as JSON.
struct TransferCancelResult: Encodable {
    let cancelled: String
}
