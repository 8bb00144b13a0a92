import ArgumentParser
import E2EEMessaging

/// `e2ee-tool safety-number <user-id> [--key <fingerprint> | --no-key]` (docs/spec/protocol.md
/// §7, §10.18).
struct SafetyNumberCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "safety-number",
        abstract: "The safety number between us and a user (compare it out of band).",
        discussion: """
            For a user with a pinned user key, their half comes from the key alone: it changes with the \
            key, never with their devices. Otherwise it covers every trusted device of both users. \
            --key computes it under one of the user's listed keys (user-key show lists them), to compare \
            before user-key pin or accept; --no-key as for a user without a key, to compare before \
            user-key forget. A key never listed for the user exits 6.
            """)

    @OptionGroup var options: GlobalOptions

    @Argument(help: "The other user's id.")
    var userID: String

    @Option(name: .long, help: ArgumentHelp("Under this listed user key of theirs (64 hex digits).", valueName: "fingerprint"))
    var key: String?

    @Flag(name: .long, help: "As for a user without a user key (their trusted devices).")
    var noKey = false

    func validate() throws {
        if key != nil && noKey { throw ValidationError("give --key or --no-key, not both") }
        if let key, UserKey(fingerprint: key) == nil { throw ValidationError("a user key fingerprint is 64 hex digits") }
    }

    /// Which number to compute.
    private enum Basis: Sendable {
        case current
        case key(UserKey)
        case noKey
    }

    func run() async throws {
        let context = ToolContext(options: options)
        let basis: Basis
        if let key {
            guard let parsed = UserKey(fingerprint: key) else { throw ValidationError("a user key fingerprint is 64 hex digits") }
            basis = .key(parsed)
        } else {
            basis = noKey ? .noKey : .current
        }
        let opened = try await context.openAccount()
        let other = UserID(userID)
        let (number, usedKey, changes) = try await opened.using { account in
            let (number, usedKey): (String, UserKey?)
            switch basis {
            case .current:
                // The listing first: at first contact it pins the key the number is computed under.
                _ = try await account.devices(of: other)
                number = try await account.safetyNumber(with: other).displayText
                let info = try await account.userKey(of: other)
                usedKey = info.state == .pinned ? info.key : nil
            case .key(let key):
                _ = try await account.devices(of: other)  // the listing now: the keys it shows are stored
                let info = try await account.userKey(of: other)
                guard info.key == key || info.otherKeys.contains(key) else {
                    throw ToolError(.notFound, "user key \(key) was never listed for user \(other)")
                }
                (number, usedKey) = (try await account.safetyNumber(with: other, userKey: key).displayText, key)
            case .noKey:
                (number, usedKey) = (try await account.safetyNumber(with: other, userKey: nil).displayText, nil)
            }
            return (number, usedKey, try await account.identityChanges(of: other))
        }
        let warnings = IdentityWarnings(changes)
        let result = SafetyNumberResult(userID: other.rawValue, safetyNumber: number, userKey: usedKey?.fingerprint, identityChanges: warnings.entries)
        try context.console.result(result) {
            ([number, usedKey.map { "(under user key \($0))" } ?? "(over their devices)"] + warnings.lines).joined(separator: "\n")
        }
    }
}

/// `safety-number` as JSON.
struct SafetyNumberResult: Encodable {
    let userID: String
    let safetyNumber: String
    /// The user key the other half was computed under; absent: over their devices.
    let userKey: String?
    let identityChanges: [IdentityChangeEntry]
    enum CodingKeys: String, CodingKey {
        case userID = "user_id", safetyNumber = "safety_number", userKey = "user_key", identityChanges = "identity_changes"
    }
}
