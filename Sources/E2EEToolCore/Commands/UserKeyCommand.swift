import ArgumentParser
import E2EEMessaging

/// `e2ee-tool user-key show|accept|pin|verify|forget` (docs/spec/protocol.md §10): a contact's
/// user key and the user's decisions about it.
struct UserKeyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "user-key",
        abstract: "A user's user key: show it, and accept a change, pin a key, mark it verified or forget it; our own: create it, show its status.",
        discussion: """
            A user with a user key has their devices certified by it: a contact pins the key at first \
            contact and sends to exactly the devices it links, with no approval. Several keys, no \
            certified device, or a key change waiting leave the user unresolved: nothing is sent to them \
            (send exits 16) until the user decides here, best after comparing safety numbers \
            (safety-number <user-id> --key <fingerprint> | --no-key).
            """,
        subcommands: [UserKeyShowCommand.self, Accept.self, Pin.self, Verify.self, Forget.self, UserKeyCreateCommand.self, UserKeyStatusCommand.self,
                      UserKeyStopCommand.self, UserKeyResetCommand.self, UserKeyTakeOverCommand.self, UserKeyConfirmTrustCommand.self]
    )

    /// Runs `decide` for `userID`, then prints the user's key as it now stands, under `decision`.
    static func decide(_ decision: String, userID: String, options: GlobalOptions,
                       _ decide: @escaping @Sendable (Account, UserID) async throws -> Void) async throws {
        let context = ToolContext(options: options)
        let opened = try await context.openAccount()
        let user = UserID(userID)
        let (info, linked) = try await opened.using { account in
            try await decide(account, user)
            return (try await account.userKey(of: user), try await account.linkedDevices(of: user))
        }
        let output = UserKeyOutput(info, linkedDevices: linked)
        try context.console.result(UserKeyDecisionResult(decision: decision, userKey: output)) {
            (["\(decision): user \(user)"] + output.lines).joined(separator: "\n")
        }
    }

    /// `user-key accept <user-id>`.
    struct Accept: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Accept a user's key change that is due: the new key is pinned (or, for \"no user key\", their devices are held until approved).",
            discussion: "Compare safety numbers first (safety-number <user-id> --key <new fingerprint>). With no change waiting it exits 6.")

        @OptionGroup var options: GlobalOptions

        @Argument(help: "The user's id.")
        var userID: String

        func run() async throws {
            try await UserKeyCommand.decide("accepted", userID: userID, options: options) { try await $0.acceptUserKeyChange(of: $1) }
        }
    }

    /// `user-key pin <user-id> <fingerprint>`.
    struct Pin: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Pin one of a user's listed keys (any time, replaced ones included): it resolves a conflict or a waiting change.",
            discussion: "Compare safety numbers first (safety-number <user-id> --key <fingerprint>). A key never listed for the user exits 6.")

        @OptionGroup var options: GlobalOptions

        @Argument(help: "The user's id.")
        var userID: String

        @Argument(help: ArgumentHelp("The key's fingerprint: 64 hex digits (user-key show lists them).", valueName: "fingerprint"))
        var fingerprint: String

        func validate() throws {
            guard UserKey(fingerprint: fingerprint) != nil else { throw ValidationError("a user key fingerprint is 64 hex digits") }
        }

        func run() async throws {
            guard let key = UserKey(fingerprint: fingerprint) else { throw ValidationError("a user key fingerprint is 64 hex digits") }
            try await UserKeyCommand.decide("pinned", userID: userID, options: options) { try await $0.pinUserKey(key, of: $1) }
        }
    }

    /// `user-key verify <user-id>`.
    struct Verify: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Mark a user's pinned key verified, after comparing safety numbers (a later change then says so).",
            discussion: "A user with no pinned key exits 6.")

        @OptionGroup var options: GlobalOptions

        @Argument(help: "The user's id.")
        var userID: String

        func run() async throws {
            try await UserKeyCommand.decide("verified", userID: userID, options: options) { try await $0.markUserKeyVerified(of: $1) }
        }
    }

    /// `user-key forget <user-id>`.
    struct Forget: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Return a user to \"no user key\" after comparing safety numbers (safety-number <user-id> --no-key): text 1.2 applies, every device of theirs is held until approved.",
            discussion: "A user this device never met exits 6.")

        @OptionGroup var options: GlobalOptions

        @Argument(help: "The user's id.")
        var userID: String

        func run() async throws {
            try await UserKeyCommand.decide("forgotten", userID: userID, options: options) { try await $0.forgetUserKey(of: $1) }
        }
    }
}

/// A `user-key` decision as JSON: the decision and the user's key after it.
struct UserKeyDecisionResult: Encodable {
    let decision: String
    let userKey: UserKeyOutput
    enum CodingKeys: String, CodingKey { case decision, userKey = "user_key" }
}
