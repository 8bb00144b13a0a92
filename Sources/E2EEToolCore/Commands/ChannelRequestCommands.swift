import ArgumentParser
import E2EEMessaging

/// `channels requests`, `channels accept <id>`, `channels decline <id>`, `channels add <channel-id> <user-id>`,
/// `channels held`, `channels approve-member` and `channels decline-member` (docs/spec/protocol.md §5.9–§5.11).
enum ChannelRequestCommands {
    /// `channels requests`: channels this device did not create, open or accept.
    struct Requests: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List the requests: DMs and groups this device did not create or open (nothing is sent in them until accepted).")

        @OptionGroup var options: GlobalOptions

        func run() async throws {
            let context = ToolContext(options: options)
            let opened = try await context.openAccount()
            let requests = try await opened.using { account in
                _ = try await account.refreshChannels()
                // Caught up first: a DM's waiting messages name its candidate.
                try await account.sync()
                var entries: [RequestEntry] = []
                for request in try await account.channelRequests() {
                    let users = (request.candidate.map { [$0] } ?? []) + request.members
                    entries.append(RequestEntry(request, names: await UserArgument.names(users, in: account)))
                }
                return entries
            }
            try context.console.result(RequestsResult(requests: requests)) {
                requests.isEmpty ? "no requests" : requests.map(\.line).joined(separator: "\n")
            }
        }
    }

    /// `channels accept <id>`.
    struct Accept: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Accept a request as `channels requests` last showed it: a DM's participant becomes the candidate shown, a group's members the ones shown (anyone listed since is held).")

        @OptionGroup var options: GlobalOptions

        @Argument(help: "The channel's id.")
        var channelID: String

        func run() async throws {
            let context = ToolContext(options: options)
            let opened = try await context.openAccount()
            let channel = ChannelID(channelID)
            let (users, names, described) = try await opened.using { account in
                // Caught up first (what `requests` showed stays what is accepted; a request never
                // shown is read after the catch-up, so a DM's waiting message names its candidate).
                try await account.sync(channelID: channel)
                let users = try await account.acceptChannel(channel)
                await account.waitForOutboxToSettle()  // the announcement of the acceptance, if any
                var described: [String] = []
                for user in users { described.append(await UserArgument.describe(user, in: account)) }
                return (users, await UserArgument.names(users, in: account), described)
            }
            let result = ChannelDecisionResult(channelID: channel.rawValue, decision: "accepted", users: users.map(\.rawValue), names: names)
            try context.console.result(result) {
                "accepted \(channel): \(described.joined(separator: ", "))"
            }
        }
    }

    /// `channels decline <id>`.
    struct Decline: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Decline a request: nothing is ever sent in it (a DM's candidate is declined and the next one offered).")

        @OptionGroup var options: GlobalOptions

        @Argument(help: "The channel's id.")
        var channelID: String

        func run() async throws {
            let context = ToolContext(options: options)
            let opened = try await context.openAccount()
            let channel = ChannelID(channelID)
            try await opened.using { try await $0.declineChannel(channel) }
            try context.console.result(ChannelDecisionResult(channelID: channel.rawValue, decision: "declined", users: [])) { "declined \(channel)" }
        }
    }

    /// `channels add <channel-id> <user-id>`.
    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Add a member to a group (adding it is this device's approval).")

        @OptionGroup var options: GlobalOptions

        @Argument(help: "The group's id.")
        var channelID: String

        @Argument(help: "The user to add.")
        var userID: String

        func run() async throws {
            let context = ToolContext(options: options)
            let opened = try await context.openAccount()
            let (channel, user) = (ChannelID(channelID), UserID(userID))
            try await opened.using { account in
                try await account.addMember(user, to: channel)
                await account.waitForOutboxToSettle()  // the announcement of the addition
            }
            try context.console.result(ChannelDecisionResult(channelID: channel.rawValue, decision: "added", users: [user.rawValue])) { "added \(user) to \(channel)" }
        }
    }

    /// `channels held`: members held back from groups.
    struct Held: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the members held back from groups until approved.")

        @OptionGroup var options: GlobalOptions

        func run() async throws {
            let context = ToolContext(options: options)
            let opened = try await context.openAccount()
            let held = try await opened.using { try await $0.pendingMembers() }.map { HeldMemberEntry(channelID: $0.channelID.rawValue, userID: $0.userID.rawValue) }
            try context.console.result(HeldMembersResult(members: held)) {
                held.isEmpty ? "no held members" : held.map { "\($0.channelID)  \($0.userID)  held" }.joined(separator: "\n")
            }
        }
    }

    /// `channels approve-member <channel-id> <user-id>` and `channels decline-member …`.
    struct MemberDecision: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "member", abstract: "Approve or decline a member of a group: channels member approve|decline <channel-id> <user-id>.")

        @OptionGroup var options: GlobalOptions

        @Argument(help: "approve or decline.")
        var decision: Choice

        @Argument(help: "The group's id.")
        var channelID: String

        @Argument(help: "The user.")
        var userID: String

        enum Choice: String, ExpressibleByArgument { case approve, decline }

        func run() async throws {
            let context = ToolContext(options: options)
            let opened = try await context.openAccount()
            let (channel, user, decision) = (ChannelID(channelID), UserID(userID), self.decision)
            try await opened.using { account in
                switch decision {
                case .approve: try await account.approveMember(user, in: channel)
                case .decline: try await account.declineMember(user, in: channel)
                }
                await account.waitForOutboxToSettle()  // the decision's announcement
            }
            let word = decision == .approve ? "approved" : "declined"
            try context.console.result(ChannelDecisionResult(channelID: channel.rawValue, decision: word, users: [user.rawValue])) { "\(word) \(user) in \(channel)" }
        }
    }
}

/// A request in output.
struct RequestEntry: Encodable {
    let id: String
    let kind: String
    let candidate: String?
    let members: [String]
    /// The usernames of the candidate and members, by user id.
    let names: [String: String]

    init(_ request: ChannelRequest, names: [String: String] = [:]) {
        id = request.channel.id.rawValue
        kind = request.channel.isDM ? "dm" : "group"
        candidate = request.candidate?.rawValue
        members = request.members.map(\.rawValue)
        self.names = names
    }

    /// `alice (<id>)`, or the id when no name is known.
    private func named(_ id: String) -> String { names[id].map { "\($0) (\(id))" } ?? id }

    var line: String {
        guard kind == "dm" else { return "\(id)  group  members \(members.map(named).joined(separator: ", "))" }
        guard let candidate else { return "\(id)  dm  from (no message yet)" }
        return "\(id)  dm  from \(named(candidate)): channels accept \(id) to read it"
    }
}

/// `channels requests` as JSON.
struct RequestsResult: Encodable {
    let requests: [RequestEntry]
}

/// A decision about a channel or its members, as JSON.
struct ChannelDecisionResult: Encodable {
    let channelID: String
    let decision: String
    let users: [String]
    /// The users' usernames, by user id (when known).
    var names: [String: String]?
    enum CodingKeys: String, CodingKey { case channelID = "channel_id", decision, users, names }
}

/// A held member in output.
struct HeldMemberEntry: Encodable {
    let channelID: String
    let userID: String
    enum CodingKeys: String, CodingKey { case channelID = "channel_id", userID = "user_id" }
}

/// `channels held` as JSON.
struct HeldMembersResult: Encodable {
    let members: [HeldMemberEntry]
}
