import ArgumentParser
import E2EEMessaging

/// `e2ee-tool user-key show <user-id>` (docs/spec/protocol.md §10).
struct UserKeyShowCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "show",
        abstract: "A user's key state: none, pinned (fingerprint, verified, seen until, last seen, linked devices) or conflicted; a waiting change; other listed keys.",
        discussion: """
            Reads the user's device listing first, as a send would: a user met for the first time has \
            their key pinned now if every current certificate carries the same one, or is conflicted if \
            several keys show.
            """)

    @OptionGroup var options: GlobalOptions

    @Argument(help: "The user's id.")
    var userID: String

    func run() async throws {
        let context = ToolContext(options: options)
        let opened = try await context.openAccount()
        let user = UserID(userID)
        let (info, linked) = try await opened.using { account in
            _ = try await account.devices(of: user)  // the listing now: what it changes is stored and surfaced
            return (try await account.userKey(of: user), try await account.linkedDevices(of: user))
        }
        let output = UserKeyOutput(info, linkedDevices: linked)
        try context.console.result(output) { output.lines.joined(separator: "\n") }
    }
}
