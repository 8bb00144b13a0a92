import ArgumentParser
import E2EEMessaging
import Foundation

/// `e2ee-tool transfer status | retry <device-id> | skip | cancel <id>` (docs/spec/protocol.md §11.6): the link transfers
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
        subcommands: [Status.self, Retry.self, Skip.self, Cancel.self])

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

    /// `transfer retry <device-id>`.
    struct Retry: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "On the primary: send a linked device your trust decisions again (a new grant, a new transfer); waits until it has them.",
            discussion: """
                The linked device takes the new grant while a command that connects runs there \
                (listen, for instance). A running transfer to that device is cancelled first.
                """)

        @OptionGroup var options: GlobalOptions
        @Argument(help: "The linked device's id.") var deviceID: String
        @Option(name: .long, help: "Seconds before giving up (exit 11).") var timeout: Double = 900

        func validate() throws { try ListenCommand.validateTimeout(timeout) }

        func run() async throws {
            let context = ToolContext(options: options)
            let opened = try await context.openAccount()
            let console = context.console
            let device = DeviceID(deviceID.lowercased())
            let outcome = try await opened.using { account -> LinkConversation.Outcome in
                let events = account.events()
                let id = try await account.retryTransfer(to: device)
                console.progress("transfer \(id): new grant sent to \(device.rawValue); waiting for it to confirm…")
                return try await LinkConversation.whileConnected(account, serverURL: opened.serverURL, options: options, timeout: timeout,
                                                                 console: console) { await Self.follow(events, console: console) }
            }
            switch outcome {
            case .linked:
                try console.result(TransferRetryResult(device: device.rawValue, done: true)) { "done: \(device.rawValue) has this device's trust decisions" }
            case .transferFailed(let reason):
                throw ToolError(.linkFailed, "the transfer failed (\(reason)): retry again")
            case .trustStateUnconfirmed(let held):
                throw LinkConversation.trustStateUnconfirmed(held, linked: false)
            case .cancelled(let reason):
                throw ToolError(.linkFailed, "the transfer was cancelled (\(LinkConversation.describe(reason)))")
            case .session(let ending):
                if let failure = ConnectedSession.failure(for: ending) { throw failure }
                throw ToolError(.timedOut, "the transfer did not finish before the timeout")
            }
        }

        static func follow(_ events: AsyncStream<AccountEvent>, console: Console) async -> LinkConversation.Outcome {
            for await event in events {
                guard case .linking(let link) = event else { continue }
                switch link {
                case .trustSent: return .linked
                case .transferFailed(let reason): return .transferFailed(reason)
                case .trustStateUnconfirmed(let device): return .trustStateUnconfirmed(device)
                case .transfer(let progress): console.progress("transfer " + TransferLine(progress).text)
                default: continue
                }
            }
            return .transferFailed("the account stopped")
        }
    }

    /// `transfer skip`.
    struct Skip: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "On a linked device whose transfer failed: go on without it (contacts' keys decided here are provisional until a retry).")

        @OptionGroup var options: GlobalOptions

        func run() async throws {
            let context = ToolContext(options: options)
            let opened = try await context.openAccount()
            try await opened.using { try await $0.skipTransfer() }
            try context.console.result(TransferSkipResult(skipped: true)) {
                "skipped: contacts' keys decided on this device are provisional until the primary retries the transfer"
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

/// `transfer retry` as JSON.
struct TransferRetryResult: Encodable {
    let device: String
    let done: Bool
}

/// `transfer skip` as JSON.
struct TransferSkipResult: Encodable {
    let skipped: Bool
}

/// `transfer cancel` as JSON.
struct TransferCancelResult: Encodable {
    let cancelled: String
}
