import ArgumentParser
import E2EECrypto
import E2EEKeyStore
import E2EEMessaging
import Foundation

/// `e2ee-tool devices [list] <user-id>` (``DevicesCommand``'s default).
struct DevicesListCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "A user's trusted devices as the server lists them now, with their certificates and identity-change warnings.",
        discussion: """
            New devices are pinned on first sight; a device whose identity changed is left out and listed as a \
            warning. Each device shows the user key its certificate names (when the certificate verifies for \
            it), its epoch and expiry, and whether it is linked under the user's pinned key: only linked \
            devices of a user with a user key receive anything (user-key show).
            """)

    @OptionGroup var options: GlobalOptions

    @Argument(help: "The user's id.")
    var userID: String

    func run() async throws {
        let context = ToolContext(options: options)
        let opened = try await context.openAccount()
        let user = UserID(userID)
        let (devices, linked, info, changes) = try await opened.using { account in
            let devices = try await account.devices(of: user)
            return (devices, Set(try await account.linkedDevices(of: user)), try await account.userKey(of: user), try await account.identityChanges(of: user))
        }
        let warnings = IdentityWarnings(changes)
        let entries = try devices.map { device in
            DeviceEntry(device, fingerprint: try SafetyNumber.fingerprint(userID: device.userID.rawValue, identityBlobs: [device.identity.bytes]),
                        linked: linked.contains(device.deviceID))
        }
        let result = DevicesResult(userID: user.rawValue, userKeyState: UserKeyOutput.name(info.state), devices: entries, identityChanges: warnings.entries)
        try context.console.result(result) {
            var lines = entries.isEmpty ? ["no trusted device"] : entries.flatMap(\.lines)
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

/// A device in `devices` output: its identity fingerprint and its certificate (docs/spec/protocol.md §10.3–§10.4).
struct DeviceEntry: Encodable {
    let deviceID: String
    let fingerprint: String
    /// `none` (a zero certificate), `valid` (it verifies for this device) or `invalid`.
    let certificate: String
    /// The user key a valid certificate names.
    let key: String?
    let epoch: UInt32?
    /// The certificate's `not_after`, ISO 8601.
    let notAfter: String?
    /// Linked under the user's pinned key in this listing.
    let linked: Bool

    init(_ device: RemoteDevice, fingerprint: String, linked: Bool) {
        deviceID = device.deviceID.rawValue
        self.fingerprint = fingerprint
        let verified = device.verifiedCertificate
        certificate = verified != nil ? "valid" : device.bundle.certificate.isZero ? "none" : "invalid"
        key = verified.flatMap { UserKey(publicKey: $0.userKey.rawRepresentation)?.fingerprint }
        epoch = verified?.epoch
        notAfter = verified.map { UserKeyOutput.date(Date(timeIntervalSince1970: TimeInterval($0.notAfter))) }
        self.linked = linked
    }

    /// The device, then its certificate on an indented line.
    var lines: [String] {
        let certified = key.map { "key \($0)  epoch \(epoch.map(String.init) ?? "?")  expires \(notAfter ?? "?")" }
            ?? (certificate == "invalid" ? "key invalid (the certificate does not verify for this device)" : "key none")
        return ["\(deviceID)  \(DigitGroups.format(fingerprint))", "    \(certified)  linked \(linked ? "yes" : "no")"]
    }

    enum CodingKeys: String, CodingKey { case deviceID = "device_id", fingerprint, certificate, key, epoch, notAfter = "not_after", linked }
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
    /// The user's key state (`user-key show`): `unknown`, `none`, `pinned` or `conflicted`.
    let userKeyState: String
    let devices: [DeviceEntry]
    let identityChanges: [IdentityChangeEntry]
    enum CodingKeys: String, CodingKey { case userID = "user_id", userKeyState = "user_key_state", devices, identityChanges = "identity_changes" }
}
