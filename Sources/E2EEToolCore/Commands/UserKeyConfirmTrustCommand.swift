import ArgumentParser
import E2EEMessaging

/// `e2ee-tool user-key confirm-trust` (docs/spec/protocol.md §11.3): on a primary whose store is
/// behind its primary file's trust counter, the user confirms the trust state it shows, and
/// transfers may send it again.
struct UserKeyConfirmTrustCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "confirm-trust",
        abstract: "On the primary: confirm the trust decisions this device shows after its store was found behind its primary file.",
        discussion: """
            user-key status says trust state unconfirmed, and link accept or transfer retry stops \
            (exit 14), when this device's store is older than its primary file — it was restored from \
            an older copy — so decisions made since may be missing from it: channels accepted or \
            declined, members and devices approved or declined, contacts' keys. Look at them, redo \
            what is missing, then confirm here; then run transfer retry <device-id> (or link again) to \
            send a linked device these decisions.
            """)

    @OptionGroup var options: GlobalOptions

    func run() async throws {
        let context = ToolContext(options: options)
        let opened = try await context.openAccount()
        try await opened.using { try await $0.confirmTrustState() }
        try context.console.result(ConfirmedResult(confirmed: true)) {
            "confirmed: the trust decisions this device shows; transfers send them again (transfer retry <device-id>)"
        }
    }
}
