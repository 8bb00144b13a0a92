import ArgumentParser
import E2EECrypto
import E2EEKeyStore
import E2EEMessaging
import Foundation

/// `e2ee-tool safety-number <user-id>`.
struct SafetyNumberCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "safety-number",
        abstract: "The safety number between us and a user, over every trusted device of both (compare it out of band).")

    @OptionGroup var options: GlobalOptions

    @Argument(help: "The other user's id.")
    var userID: String

    func run() async throws {
        let context = ToolContext(options: options)
        let opened = try await context.openAccount()
        let other = userID
        let (number, changes) = try await opened.using { account in
            (try await account.safetyNumber(with: UserID(other)).displayText, try await account.identityChanges(of: UserID(other)))
        }
        let warnings = IdentityWarnings(changes)
        let result = SafetyNumberResult(userID: other.lowercased(), safetyNumber: number, identityChanges: warnings.entries)
        try context.console.result(result) {
            ([number] + warnings.lines).joined(separator: "\n")
        }
    }
}

/// `e2ee-tool devices [list] <user-id>` (``DevicesCommand``'s default).
struct DevicesListCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "A user's trusted devices as the server lists them now, with identity-change warnings.",
        discussion: "New devices are pinned on first sight; a device whose identity changed is left out and listed as a warning.")

    @OptionGroup var options: GlobalOptions

    @Argument(help: "The user's id.")
    var userID: String

    func run() async throws {
        let context = ToolContext(options: options)
        let opened = try await context.openAccount()
        let user = userID
        let (devices, changes) = try await opened.using { account in
            (try await account.devices(of: UserID(user)), try await account.identityChanges(of: UserID(user)))
        }
        let warnings = IdentityWarnings(changes)
        let entries = try devices.map { device in
            DeviceEntry(deviceID: device.deviceID.rawValue,
                        fingerprint: try SafetyNumber.fingerprint(userID: device.userID.rawValue, identityBlobs: [device.identity.bytes]))
        }
        let result = DevicesResult(userID: user.lowercased(), devices: entries, identityChanges: warnings.entries)
        try context.console.result(result) {
            var lines = entries.isEmpty ? ["no trusted device"] : entries.map { "\($0.deviceID)  \(DigitGroups.format($0.fingerprint))" }
            lines += warnings.lines
            return lines.joined(separator: "\n")
        }
    }
}

/// Identity changes not yet accepted, as warnings.
struct IdentityWarnings {
    let entries: [IdentityChangeEntry]

    init(_ changes: [IdentityKeyChange]) {
        entries = changes.filter { !$0.accepted }.map {
            IdentityChangeEntry(deviceID: $0.deviceID.rawValue, seenAt: ISO8601DateFormatter().string(from: Date(timeIntervalSince1970: Double($0.seenAt.microseconds) / 1_000_000)))
        }
    }

    var lines: [String] {
        entries.map {
            "WARNING: device \($0.deviceID) changed its identity key (seen \($0.seenAt)); it gets no messages until the change is accepted. Compare safety numbers."
        }
    }
}

/// A device in `devices` output.
struct DeviceEntry: Encodable {
    let deviceID: String
    let fingerprint: String
    enum CodingKeys: String, CodingKey { case deviceID = "device_id", fingerprint }
}

/// An identity change in JSON output.
struct IdentityChangeEntry: Encodable {
    let deviceID: String
    let seenAt: String
    enum CodingKeys: String, CodingKey { case deviceID = "device_id", seenAt = "seen_at" }
}

/// `devices` as JSON.
struct DevicesResult: Encodable {
    let userID: String
    let devices: [DeviceEntry]
    let identityChanges: [IdentityChangeEntry]
    enum CodingKeys: String, CodingKey { case userID = "user_id", devices, identityChanges = "identity_changes" }
}

/// `safety-number` as JSON.
struct SafetyNumberResult: Encodable {
    let userID: String
    let safetyNumber: String
    let identityChanges: [IdentityChangeEntry]
    enum CodingKeys: String, CodingKey { case userID = "user_id", safetyNumber = "safety_number", identityChanges = "identity_changes" }
}
