import ArgumentParser
import E2EEMessaging

/// `e2ee-tool keys bootstrap|replenish|status|rotate`.
struct KeysCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "keys",
        abstract: "This device's keys: bootstrap, one-time-prekey replenishment, status, signed-prekey rotation.",
        subcommands: [Bootstrap.self, Replenish.self, Status.self, Rotate.self]
    )

    /// `keys bootstrap`: idempotent.
    struct Bootstrap: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Generate and upload the identity, signed prekey and one-time prekeys (a second run changes nothing and says so).")

        @OptionGroup var options: GlobalOptions

        func run() async throws {
            let context = ToolContext(options: options)
            let opened = try await context.openAccount()
            context.console.progress("bootstrapping keys for device \(opened.account.deviceID)…")
            let outcome = try await opened.using { try await $0.bootstrapKeys() }
            let result: BootstrapResult
            switch outcome {
            case .uploaded(let count): result = BootstrapResult(alreadyBootstrapped: false, oneTimePrekeysOnOffer: count)
            case .alreadyBootstrapped: result = BootstrapResult(alreadyBootstrapped: true, oneTimePrekeysOnOffer: nil)
            }
            context.logger.debug("bootstrap done", metadata: ["already": "\(result.alreadyBootstrapped)"])
            try context.console.result(result) {
                result.alreadyBootstrapped
                    ? "already bootstrapped: keys are in place locally and on the server; nothing changed"
                    : "bootstrapped: identity, signed prekey and \(result.oneTimePrekeysOnOffer ?? 0) one-time prekeys uploaded"
            }
        }
    }

    /// `keys replenish [--target N] [--watch [--timeout SECONDS]]`.
    struct Replenish: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Top the one-time prekeys up to the target (counting what the server still holds); --watch keeps doing it.",
            discussion: """
                Reads this device's count on the server (one bundle fetch, which a server that pops \
                one-time prekeys charges one), then stores new prekeys as pending, uploads them and \
                marks them published. With --watch it then stays connected: the account replenishes \
                to the target whenever the server sends keys.low_otp for this device (or fewer than \
                10 are left locally), and each run is printed with the server's count before and \
                after (--json: one JSON object per line). Ends on SIGINT or SIGTERM or when \
                --timeout passes (exit 0), or when the session ends (5).
                """)

        @OptionGroup var options: GlobalOptions

        @Option(name: .long, help: "How many unconsumed one-time prekeys the server should offer.")
        var target = 50

        @Flag(name: .long, help: "Stay connected and replenish on every keys.low_otp.")
        var watch = false

        @Option(name: .long, help: ArgumentHelp("With --watch: stop after this many seconds.", valueName: "seconds"))
        var timeout: Double?

        func validate() throws {
            guard (1...1000).contains(target) else { throw ValidationError("--target must be between 1 and 1000") }
            if let timeout {
                guard watch else { throw ValidationError("--timeout needs --watch") }
                try ListenCommand.validateTimeout(timeout)
            }
        }

        func run() async throws {
            let context = ToolContext(options: options)
            let opened = try await context.openAccount(configuration: AccountConfiguration(oneTimePrekeyTarget: target))
            let (target, watch) = (self.target, self.watch)
            let ending = try await opened.using { account -> ConnectedSession.Ending? in
                let result = try await Self.replenishNow(account, target: target)
                guard watch else {
                    try context.console.result(result) { result.text }
                    return nil
                }
                var first = result
                first.event = "replenish"
                try context.console.record(first) { first.text }
                context.console.progress("watching for keys.low_otp (Ctrl-C to stop)…")
                return try await ConnectedSession(account: account, serverURL: opened.serverURL, console: context.console,
                                                  verbose: options.verbose, timeout: timeout).run(KeyReportPrinter(console: context.console))
            }
            if let ending, let failure = ConnectedSession.failure(for: ending) { throw failure }
        }

        /// Reads the server's count and tops it up to `target`.
        static func replenishNow(_ account: Account, target: Int) async throws -> ReplenishResult {
            let before = try await account.keyStatus()
            guard before.signedPrekeyID != nil else { throw MessagingError.keysNotBootstrapped }
            let uploaded = try await account.replenishOneTimePrekeys(target: target, serverRemaining: before.serverOneTimePrekeys)
            return ReplenishResult(target: target, serverBefore: before.serverOneTimePrekeys, uploaded: uploaded)
        }
    }

    /// Prints every key maintenance run the account reports (`keys replenish --watch`).
    struct KeyReportPrinter: AccountEventHandling {
        let console: Console

        func handle(_ event: AccountEvent) async throws -> Bool {
            guard case .keyMaintenance(let report) = event else { return true }
            let record = KeyMaintenanceRecord(report)
            try console.record(record) { record.text }
            return true
        }
    }

    /// `keys status`.
    struct Status: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Local and server one-time-prekey counts, signed prekey age, identity fingerprint.",
            discussion: "The server count comes from a fetch of our own bundle (which a server that pops one-time prekeys charges one).")

        @OptionGroup var options: GlobalOptions

        func run() async throws {
            let context = ToolContext(options: options)
            let opened = try await context.openAccount()
            let status = try await opened.using { try await $0.keyStatus() }
            let result = KeyStatusResult(userID: opened.account.userID.rawValue, deviceID: opened.account.deviceID.rawValue, status)
            try context.console.result(result) { result.text }
        }
    }

    /// `keys rotate`.
    struct Rotate: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Make a new signed prekey now and upload it (the old one is kept for late messages).")

        @OptionGroup var options: GlobalOptions

        func run() async throws {
            let context = ToolContext(options: options)
            let opened = try await context.openAccount()
            let status = try await opened.using { account in
                _ = try await account.rotateSignedPrekey(force: true)
                return try await account.keyStatus()
            }
            let result = RotateResult(signedPrekeyID: status.signedPrekeyID)
            try context.console.result(result) { "rotated: the signed prekey is now id \(status.signedPrekeyID.map(String.init) ?? "?")" }
        }
    }
}

/// `keys bootstrap` as JSON.
struct BootstrapResult: Encodable {
    let alreadyBootstrapped: Bool
    let oneTimePrekeysOnOffer: Int?
    enum CodingKeys: String, CodingKey { case alreadyBootstrapped = "already_bootstrapped", oneTimePrekeysOnOffer = "one_time_prekeys_on_offer" }
}

/// `keys replenish` as JSON (`event` only in `--watch`'s stream).
struct ReplenishResult: Encodable {
    var event: String?
    let target: Int
    let serverBefore: Int?
    let uploaded: Int
    enum CodingKeys: String, CodingKey { case event, target, serverBefore = "server_before", uploaded }

    init(target: Int, serverBefore: Int?, uploaded: Int) {
        self.target = target
        self.serverBefore = serverBefore
        self.uploaded = uploaded
    }

    var text: String {
        let before = serverBefore.map { "the server held \($0)" } ?? "the server's count is unknown"
        return uploaded == 0
            ? "nothing to do: \(before) (target \(target))"
            : "uploaded \(uploaded) one-time prekeys: \(before), target \(target)"
    }
}

/// A key maintenance run the account reported (`keys replenish --watch`).
struct KeyMaintenanceRecord: Encodable {
    let event = "key_maintenance"
    let uploaded: Int
    let signedPrekeyRotated: Bool
    let serverBefore: Int?
    let serverAfter: Int?
    enum CodingKeys: String, CodingKey {
        case event, uploaded, signedPrekeyRotated = "signed_prekey_rotated", serverBefore = "server_before", serverAfter = "server_after"
    }

    init(_ report: KeyMaintenanceReport) {
        uploaded = report.oneTimePrekeysUploaded
        signedPrekeyRotated = report.signedPrekeyRotated
        serverBefore = report.serverCountBefore
        serverAfter = report.serverCountAfter
    }

    var text: String {
        var parts: [String] = []
        if uploaded > 0 {
            let counts = [serverBefore.map { "the server had \($0)" }, serverAfter.map { "now holds \($0)" }].compactMap { $0 }
            parts.append("replenished: uploaded \(uploaded) one-time prekeys" + (counts.isEmpty ? "" : " (" + counts.joined(separator: ", ") + ")"))
        }
        if signedPrekeyRotated { parts.append("signed prekey rotated") }
        return parts.isEmpty ? "key maintenance: nothing changed" : parts.joined(separator: "; ")
    }
}

/// `keys rotate` as JSON.
struct RotateResult: Encodable {
    let signedPrekeyID: UInt32?
    enum CodingKeys: String, CodingKey { case signedPrekeyID = "signed_prekey_id" }
}

/// `keys status` as JSON and text.
struct KeyStatusResult: Encodable {
    let userID: String
    let deviceID: String
    let publishedOneTimePrekeys: Int
    let pendingOneTimePrekeys: Int
    let consumedOneTimePrekeys: Int
    let serverOneTimePrekeys: Int?
    let signedPrekeyID: UInt32?
    let signedPrekeyAgeSeconds: Int64?
    let identityFingerprint: String?

    init(userID: String, deviceID: String, _ status: KeyStatus) {
        self.userID = userID
        self.deviceID = deviceID
        publishedOneTimePrekeys = status.publishedOneTimePrekeys
        pendingOneTimePrekeys = status.pendingOneTimePrekeys
        consumedOneTimePrekeys = status.consumedOneTimePrekeys
        serverOneTimePrekeys = status.serverOneTimePrekeys
        signedPrekeyID = status.signedPrekeyID
        signedPrekeyAgeSeconds = status.signedPrekeyAgeSeconds
        identityFingerprint = status.identityFingerprint
    }

    enum CodingKeys: String, CodingKey {
        case userID = "user_id", deviceID = "device_id", publishedOneTimePrekeys = "published_one_time_prekeys"
        case pendingOneTimePrekeys = "pending_one_time_prekeys", consumedOneTimePrekeys = "consumed_one_time_prekeys"
        case serverOneTimePrekeys = "server_one_time_prekeys", signedPrekeyID = "signed_prekey_id"
        case signedPrekeyAgeSeconds = "signed_prekey_age_seconds", identityFingerprint = "identity_fingerprint"
    }

    var text: String {
        """
        user \(userID), device \(deviceID)
        one-time prekeys: \(publishedOneTimePrekeys) published, \(pendingOneTimePrekeys) pending, \(consumedOneTimePrekeys) consumed locally; \
        \(serverOneTimePrekeys.map { "\($0) on the server" } ?? "server count unknown (no bundle or server unreachable)")
        signed prekey: \(signedPrekeyID.map { "id \($0), \(Self.age(signedPrekeyAgeSeconds))" } ?? "none (run keys bootstrap)")
        identity fingerprint: \(identityFingerprint.map(DigitGroups.format) ?? "?")
        """
    }

    private static func age(_ seconds: Int64?) -> String {
        guard let seconds else { return "age unknown" }
        if seconds < 3600 { return "\(seconds / 60) min old" }
        if seconds < 86_400 { return "\(seconds / 3600) h old" }
        return "\(seconds / 86_400) days old"
    }
}

/// Digits shown in groups of five, as safety numbers are compared.
enum DigitGroups {
    static func format(_ digits: String) -> String {
        var groups: [String] = []
        var current = ""
        for character in digits {
            current.append(character)
            if current.count == 5 {
                groups.append(current)
                current = ""
            }
        }
        if !current.isEmpty { groups.append(current) }
        return groups.joined(separator: " ")
    }
}
