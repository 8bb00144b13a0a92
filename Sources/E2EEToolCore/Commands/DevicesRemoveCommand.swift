import ArgumentParser
import E2EEMessaging

/// `e2ee-tool devices remove <device-id>` (docs/spec/protocol.md §10.14): on the primary,
/// removes one of our own devices.
struct DevicesRemoveCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "remove",
        abstract: "On the primary: remove one of our own devices (new epoch, its logins ended, the kept devices renewed).",
        discussion: """
            One save of the primary file raises the epoch, drops the device for good and certifies this \
            device and every kept device anew; then this device's record is republished, the device is \
            deleted on the server (its logins end) and each kept device is sent its new certificate. A \
            step the server refuses is carried out at the next start of any command, until done. On a \
            device that is not the primary it exits 15 (not_primary).
            """)

    @OptionGroup var options: GlobalOptions

    @Argument(help: "The device's id.")
    var deviceID: String

    func run() async throws {
        let context = ToolContext(options: options)
        let opened = try await context.openAccount()
        let status = try await opened.using { account in
            try await account.removeDevice(DeviceID(deviceID))
            await account.waitForOutboxToSettle()  // the recerts
            return try await account.ownUserKey()
        }
        let result = DeviceRemovalResult(deviceID: deviceID, epoch: status.epoch)
        try context.console.result(result) { "removed: device \(deviceID); epoch \(status.epoch.map(String.init) ?? "-")" }
    }
}

/// `devices remove` as JSON.
struct DeviceRemovalResult: Encodable {
    let deviceID: String
    /// The epoch after the removal.
    let epoch: UInt32?
    enum CodingKeys: String, CodingKey { case deviceID = "device_id", epoch }
}
