import ArgumentParser
import E2EEMessaging

/// `devices confirm [<device-id>…]`: our own devices the server listed at this device's login,
/// shown for the user to confirm (docs/spec/protocol.md §5.12); with ids, confirms those.
struct DevicesConfirmCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "confirm",
        abstract: "Our own devices listed at this login and not confirmed yet (their decisions do not count here); with ids, confirm those.")

    @OptionGroup var options: GlobalOptions

    @Argument(help: "The ids of the devices the user recognises as theirs (none: list the unconfirmed devices).")
    var deviceIDs: [String] = []

    func run() async throws {
        let context = ToolContext(options: options)
        let opened = try await context.openAccount()
        let ids = deviceIDs.map { DeviceID($0) }
        let (confirmed, waiting) = try await opened.using { account in
            let confirmed = ids.isEmpty ? [] : try await account.confirmOwnDevices(ids)
            return (confirmed, try await account.unconfirmedOwnDevices())
        }
        let result = OwnDeviceConfirmationResult(confirmed: confirmed.map(\.rawValue), unconfirmed: waiting.map(\.rawValue))
        try context.console.result(result) {
            var lines = confirmed.map { "confirmed \($0)" }
            lines += waiting.map { "unconfirmed \($0): run devices confirm \($0) if it is yours, devices decline \($0) if not" }
            return lines.isEmpty ? "every own device is confirmed" : lines.joined(separator: "\n")
        }
    }
}

/// `devices confirm` as JSON.
struct OwnDeviceConfirmationResult: Encodable {
    let confirmed: [String]
    let unconfirmed: [String]
}
