import ArgumentParser
import E2EECrypto
import E2EEMessaging
import Foundation

/// `e2ee-tool link start | accept | status` (docs/spec/protocol.md §10.11): link a new device
/// to the primary with two typed codes.
struct LinkCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "link",
        abstract: "Link a new device of yours to your primary with two typed codes (start on the new device, accept on the primary).",
        discussion: """
            On the primary run `link accept`; then on the new device `link start`. The new device \
            prints its code: type it into the primary, which prints its own code: type that into the \
            new device. The new device is then linked under your user key, and the primary sends it \
            its trust decisions (own devices, channels, members, contacts' keys), so it accepts \
            nothing again. A wrong code, a second device asking at once or ten minutes without \
            progress cancels both sides (exit 14, link_failed): start again on both.
            """,
        subcommands: [LinkStartCommand.self, LinkAcceptCommand.self, UserKeyStatusCommand.self])
}

/// `e2ee-tool link start`: the new device's side.
struct LinkStartCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "start",
        abstract: "On a new device: ask your primary to link this device; prints this device's code, then reads the primary's code from standard input.")

    @OptionGroup var options: GlobalOptions
    @Option(name: .long, help: "Seconds before giving up (exit 11).") var timeout: Double = 900

    func validate() throws { try ListenCommand.validateTimeout(timeout) }

    func run() async throws {
        try await LinkConversation.run(options: options, timeout: timeout, role: .newDevice)
    }
}

/// `e2ee-tool link accept`: the primary's side.
struct LinkAcceptCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "accept",
        abstract: "On the primary: answer a new device's request; reads its code from standard input, prints this device's code.")

    @OptionGroup var options: GlobalOptions
    @Option(name: .long, help: "Seconds before giving up (exit 11).") var timeout: Double = 900
    @Option(name: .long, help: ArgumentHelp("The history the new device receives: none, Nd (the last N days) or all.", valueName: "scope"))
    var history: String = HistoryScope.default.description

    func validate() throws {
        try ListenCommand.validateTimeout(timeout)
        guard HistoryScope(history) != nil else { throw ValidationError("--history must be none, all, or a number of days such as 30d") }
    }

    func run() async throws {
        try await LinkConversation.run(options: options, timeout: timeout, role: .primary(history: HistoryScope(history) ?? .default))
    }
}

/// One end of a link as the tool runs it: the account connected (so link messages arrive as
/// they are posted), the attempt's steps shown — codes on standard output, progress on
/// standard error — the other device's code read from standard input, and, once linked, the
/// trust part of the transfer waited for.
enum LinkConversation {
    enum Role: Sendable {
        case primary(history: HistoryScope), newDevice

        /// Whether this end is the primary.
        var isPrimary: Bool { if case .primary = self { true } else { false } }
    }

    /// How one end ended.
    enum Outcome: Sendable, Equatable {
        case linked
        case cancelled(LinkCancelReason)
        case transferFailed(String)
        /// The primary's store is behind its file's trust counter: the transfer to the device is
        /// held until the user confirms (docs/spec/protocol.md §11.3).
        case trustStateUnconfirmed(DeviceID)
        case session(ConnectedSession.Ending)
    }

    /// A code as `--json` prints it.
    struct CodeOutput: Encodable {
        let event = "code"
        let code: String
    }

    /// Runs `follow` while `account` stays connected (so link messages arrive as they are
    /// posted); whichever ends first ends both. What this end queued last (a cancel, the last
    /// acknowledgement) goes out before it returns.
    static func whileConnected(_ account: Account, serverURL: String, options: GlobalOptions, timeout: Double, console: Console,
                               _ follow: @escaping @Sendable () async -> Outcome) async throws -> Outcome {
        let outcome = try await withThrowingTaskGroup(of: Outcome.self) { group in
            group.addTask {
                .session(try await ConnectedSession(account: account, serverURL: serverURL, console: console,
                                                    verbose: options.verbose, timeout: timeout).run(IgnoredEvents()))
            }
            group.addTask { await follow() }
            defer { group.cancelAll() }
            return try await group.next() ?? .session(.eventsEnded)
        }
        await account.waitForOutbox()
        return outcome
    }

    static func run(options: GlobalOptions, timeout: Double, role: Role) async throws {
        let context = ToolContext(options: options)
        let opened = try await context.openAccount()
        let console = context.console
        let outcome = try await opened.using { account in
            let events = account.events()
            let attempt = switch role {
            case .primary(let history): try await account.openLinkStep(history: history)
            case .newDevice: try await account.startLinking()
            }
            return try await whileConnected(account, serverURL: opened.serverURL, options: options, timeout: timeout, console: console) {
                await follow(attempt, events: events, role: role, console: console)
            }
        }
        switch outcome {
        case .linked:
            return
        case .cancelled(let reason):
            throw ToolError(.linkFailed, "the link was cancelled (\(describe(reason))): start again on both devices")
        case .transferFailed(let reason):
            throw ToolError(.linkFailed, "linked, but the transfer of the primary's trust decisions failed (\(reason)): link again")
        case .trustStateUnconfirmed(let device):
            throw trustStateUnconfirmed(device, linked: true)
        case .session(let ending):
            if let failure = ConnectedSession.failure(for: ending) { throw failure }
            throw ToolError(.timedOut, "the link did not finish before the timeout")
        }
    }

    /// Shows the steps, reads the code when asked, and waits for the transfer once linked.
    static func follow(_ attempt: LinkAttempt, events: AsyncStream<AccountEvent>, role: Role, console: Console) async -> Outcome {
        for await step in attempt.steps {
            switch step {
            case .waiting:
                console.progress(role.isPrimary ? "waiting for a request from your new device (run link start there)…"
                                                  : "asking your other devices; open link accept on your primary…")
            case .requestReceived(let device):
                console.progress("request from device \(device)")
            case .showCode(let code):
                try? console.result(CodeOutput(code: code)) { "code: \(code)" }
                console.progress("type this code into your other device")
            case .enterCode:
                console.progress("type the code your other device shows:")
                // Read beside the steps: a cancel from the other device must end this one while the user has not typed.
                Task {
                    guard let line = await StandardInputLine.read() else { return await attempt.cancel() }
                    await attempt.enter(code: line.trimmingCharacters(in: .whitespacesAndNewlines))
                }
            case .granted:
                console.progress("granted; waiting for the other device")
            case .linked:
                console.progress(role.isPrimary ? "linked; sending this device's trust decisions and history…" : "linked; receiving the primary's trust decisions and history…")
                return await waitForTransfer(events: events, role: role, console: console)
            case .cancelled(let reason):
                return .cancelled(reason)
            }
        }
        return .cancelled(.expired)
    }

    private static func waitForTransfer(events: AsyncStream<AccountEvent>, role: Role, console: Console) async -> Outcome {
        for await event in events {
            guard case .linking(let link) = event else { continue }
            switch (link, role) {
            case (.trustTransferred(let applied, let conflicts, let skipped), .newDevice):
                console.progress("took \(applied) trust decisions (\(conflicts) conflicts, \(skipped) skipped)")
                return .linked
            case (.trustSent, .primary(_)):
                console.progress("the new device has this device's trust decisions")
                return .linked
            case (.trustStateUnconfirmed(let device), .primary(_)):
                return .trustStateUnconfirmed(device)
            case (.transferFailed(let reason), _):
                return .transferFailed(reason)
            case (.transfer(let progress), _):
                console.progress("transfer " + TransferLine(progress).text)
            default:
                continue
            }
        }
        return .transferFailed("the account stopped")
    }

    /// The error of a transfer held because this primary's store is behind its file (§11.3):
    /// what to check, then the two commands that send the decisions.
    static func trustStateUnconfirmed(_ device: DeviceID, linked: Bool) -> ToolError {
        ToolError(.linkFailed, """
            \(linked ? "linked, but nothing was sent: " : "nothing was sent: ")this device's store is older than its primary file \
            (restored from an older copy?), so decisions made since may be missing from it. Check your channels, members, \
            devices and contacts' keys, redo what is missing, then run user-key confirm-trust and transfer retry \(device.rawValue)
            """)
    }

    static func describe(_ reason: LinkCancelReason) -> String {
        switch reason {
        case .codeMismatch: "a code did not match"
        case .refusedByUser: "refused"
        case .outOfOrder: "a message out of order"
        case .expired: "no progress for ten minutes, or the grant was not confirmed"
        case .superseded: "two devices asked at once"
        case .transferCancelled: "the transfer was cancelled"
        }
    }
}

/// Hands no account event anywhere (a session kept only for its connection).
struct IgnoredEvents: AccountEventHandling {
    func handle(_ event: AccountEvent) async throws -> Bool { true }
}

/// One line of standard input, read on a thread of its own so the blocking read never holds a
/// thread of the concurrency pool; nil at end of input.
enum StandardInputLine {
    static func read() async -> String? {
        await withCheckedContinuation { continuation in
            Thread.detachNewThread { continuation.resume(returning: readLine()) }
        }
    }
}
