import ArgumentParser
import E2EEMessaging

/// `e2ee-tool user-key reset [--remove <device-id>]…` (docs/spec/protocol.md §10.16): this
/// device becomes the primary of a new user key, the lost devices deleted first.
struct UserKeyResetCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "reset",
        abstract: "The primary is lost: delete the lost devices, then create a new user key here (this device its primary, epoch 1).",
        discussion: """
            Each --remove device is deleted on the server first (its logins end; never logout-all, which \
            would end this one too); then a new key and primary file are made here and this device is \
            certified and republished. Contacts are offered the new key after a wait, or at once after \
            comparing safety numbers. Link the other devices again with link start / link accept (no new \
            login). Change the password afterwards: until then its holder can log in unlinked devices.
            """)

    @OptionGroup var options: GlobalOptions

    @Option(name: .customLong("remove"), help: "A lost device to delete (repeatable).")
    var remove: [String] = []

    func run() async throws {
        let context = ToolContext(options: options)
        let opened = try await context.openAccount()
        let lost = remove.map { DeviceID($0) }
        let status = try await opened.using { account in
            try await account.resetUserKey(removing: lost)
            return try await account.ownUserKey()
        }
        let output = OwnUserKeyOutput(status, device: opened.account.deviceID)
        try context.console.result(output) { (["user key reset"] + output.lines).joined(separator: "\n") }
    }
}

/// `e2ee-tool user-key stop` (docs/spec/protocol.md §10.12): on the primary, the user confirms a
/// reset made elsewhere; this device issues nothing more.
struct UserKeyStopCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stop",
        abstract: "On the primary: a reset was made on another device; stop issuing certificates here for good.",
        discussion: "On a device that is not the primary it exits 15 (not_primary).")

    @OptionGroup var options: GlobalOptions

    func run() async throws {
        let context = ToolContext(options: options)
        let opened = try await context.openAccount()
        let status = try await opened.using { account in
            try await account.stopIssuing()
            return try await account.ownUserKey()
        }
        let output = OwnUserKeyOutput(status, device: opened.account.deviceID)
        try context.console.result(output) { output.lines.joined(separator: "\n") }
    }
}
