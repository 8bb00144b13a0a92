import ArgumentParser
import E2EEMessaging
import Foundation

/// `e2ee-tool user-key create` (docs/spec/protocol.md §10.12): this device creates the user key
/// and becomes its primary.
struct UserKeyCreateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "create",
        abstract: "Create our user key on this device, which becomes its primary: it certifies itself for 30 days and republishes its record.",
        discussion: """
            The key's private half lives only in the primary file beside the store (<store>.primary/), \
            sealed under a key derived from the store passphrase with a salt of its own, in a directory \
            tagged CACHEDIR.TAG so that backup tools honouring it (borg, restic, tar --exclude-caches) \
            skip it. Where that directory cannot be made or tagged nothing is created. A device that \
            already carries a key exits 15 (not_primary) unless it is the primary itself.
            """)

    @OptionGroup var options: GlobalOptions

    func run() async throws {
        let context = ToolContext(options: options)
        let opened = try await context.openAccount()
        let status = try await opened.using { account in
            try await account.createUserKey()
            return try await account.ownUserKey()
        }
        let output = OwnUserKeyOutput(status, device: opened.account.deviceID)
        try context.console.result(output) { (["user key created"] + output.lines).joined(separator: "\n") }
    }
}

/// `e2ee-tool user-key status` (docs/spec/protocol.md §3 "State"): our own user key as this
/// device stands under it. On the primary, opening the account runs the renewal first.
struct UserKeyStatusCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "Our own user key: this device's role (primary, linked, unlinked, no key), epoch, certificate end, primary, legacy devices, a stop.",
        discussion: "On the primary, opening the account renews its own certificate first when due (under 23 days left in the listing).")

    @OptionGroup var options: GlobalOptions

    func run() async throws {
        let context = ToolContext(options: options)
        let opened = try await context.openAccount()
        let status = try await opened.using { try await $0.ownUserKey() }
        let output = OwnUserKeyOutput(status, device: opened.account.deviceID)
        try context.console.result(output) { output.lines.joined(separator: "\n") }
    }
}

/// Our own user key as `user-key create|status` print it: text lines, or one JSON object.
struct OwnUserKeyOutput: Encodable {
    /// One legacy own device.
    struct Legacy: Encodable {
        let deviceID: String
        /// ISO 8601.
        let lapsesAt: String
        enum CodingKeys: String, CodingKey { case deviceID = "device_id", lapsesAt = "lapses_at" }
    }

    let deviceID: String
    /// `primary`, `linked`, `unlinked` or `no_key`.
    let role: String
    /// The key's fingerprint.
    let key: String?
    let epoch: UInt32?
    /// ISO 8601.
    let notAfter: String?
    let primary: String?
    let legacyDevices: [Legacy]
    /// `anotherHolder`, `restoredFile`, `fileMissing`, `resetElsewhere`, or absent.
    let issuingStopped: String?
    /// On the primary: its store is behind its primary file's trust counter, and no transfer
    /// sends until the user confirms (`user-key confirm-trust`).
    let trustStateUnconfirmed: Bool

    enum CodingKeys: String, CodingKey {
        case deviceID = "device_id", role, key, epoch, notAfter = "not_after", primary, legacyDevices = "legacy_devices"
        case issuingStopped = "issuing_stopped", trustStateUnconfirmed = "trust_state_unconfirmed"
    }

    init(_ status: OwnUserKeyStatus, device: DeviceID) {
        deviceID = device.rawValue
        role = status.role == .noKey ? "no_key" : status.role.rawValue
        key = status.key?.fingerprint
        epoch = status.epoch
        notAfter = status.notAfter.map(UserKeyOutput.date)
        primary = status.primary?.rawValue
        legacyDevices = status.legacyDevices.map { Legacy(deviceID: $0.deviceID.rawValue, lapsesAt: UserKeyOutput.date($0.lapsesAt)) }
        issuingStopped = status.issuingStopped?.rawValue
        trustStateUnconfirmed = status.trustStateUnconfirmed
    }

    /// The text form.
    var lines: [String] {
        var lines = ["device \(deviceID): \(role == "no_key" ? "no user key (text 1.2)" : role)"]
        if let key { lines.append("key: \(key)") }
        if let epoch, let notAfter { lines.append("certificate: epoch \(epoch), valid until \(notAfter)") }
        if let primary { lines.append("primary: \(primary)\(primary == deviceID ? " (this device)" : "")") }
        for legacy in legacyDevices { lines.append("legacy own device \(legacy.deviceID): a recipient until \(legacy.lapsesAt) unless linked") }
        if let issuingStopped { lines.append("* WARNING: issuing stopped (\(issuingStopped)): reset the user key") }
        if trustStateUnconfirmed {
            lines.append("* trust state unconfirmed: this store is older than its primary file; check your decisions, then user-key confirm-trust")
        }
        return lines
    }
}
