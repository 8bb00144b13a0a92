import ArgumentParser
import E2EEMessaging
import Foundation

/// `e2ee-tool clock confirm` (docs/spec/protocol.md §10.19).
struct ClockCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "clock",
        abstract: "This device's clock as the user-key rules read it: confirm it after it went back or was found suspect.",
        subcommands: [Confirm.self]
    )

    /// `clock confirm`.
    struct Confirm: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Confirm this device's clock is right: certificates are judged by it again and key changes may become due.",
            discussion: """
                After listen printed clock_went_back (the clock read over a day below the highest reading \
                seen) or clock_suspect (it disagrees with the server's by over a day), certificates past \
                their end by the highest reading stay expired and no key change is offered. Confirming makes \
                the clock's reading now the highest and the agreed one. Check the clock first.
                """)

        @OptionGroup var options: GlobalOptions

        func run() async throws {
            let context = ToolContext(options: options)
            let opened = try await context.openAccount()
            try await opened.using { try await $0.confirmClock() }
            try context.console.result(ConfirmedResult(confirmed: true)) {
                "confirmed: this device's clock; certificates and key changes are judged by it from now on"
            }
        }
    }
}

/// `clock confirm` and `user-key confirm-trust` as JSON.
struct ConfirmedResult: Encodable {
    let confirmed: Bool
}
