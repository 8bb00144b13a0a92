import E2EEMessaging
import E2EETransport
import Foundation

// The code of the "Getting started" article
// (Sources/E2EEMessaging/E2EEMessaging.docc/GettingStarted.md). Every Swift block of the article
// is a verbatim excerpt of this file: GettingStartedTests checks that, and runs this code against
// the development server, so the article cannot rot. Edit the two together. Its imports are
// the article's: E2EEMessaging and E2EETransport are all an app needs.

/// One account of the app: its own store file, its own server client and its `Account` actor.
/// An app signed in to several accounts (or servers) keeps one of these per account.
struct ChatSession: Sendable {
    let account: Account
    let store: KeyStore
    let server: ChatServer

    /// Opens the store at `storeURL` and the account it holds, or, when the store is new,
    /// registers `username` on `serverURL`, this device's keys published.
    static func start(serverURL: String, storeURL: URL, keychainKey: SecretBytes,
                      username: String, password: String) async throws -> ChatSession {
        // The server's REST and WebSocket addresses, both derived from its one URL.
        let server = try ChatServer(url: serverURL)
        // One SQLite file per account. Every secret in it is sealed under `keychainKey`: 32
        // random bytes the app made on the first launch and keeps in the platform keychain.
        let store = try KeyStore.open(at: storeURL, key: StoreKey(keychainKey))
        let account: Account
        if let existing = try await server.open(store: store) {
            // A later launch: the tokens saved (sealed) in the store sign the requests.
            account = existing
        } else {
            // The first launch: a new user and its first device, keys published. `login`
            // adds a new device to an existing user instead.
            account = try await server.register(username: username, password: password, deviceName: "phone", store: store)
        }
        return ChatSession(account: account, store: store, server: server)
    }

    /// Opens the realtime connection. The account reconnects with backoff, falls back to
    /// polling, and catches up over REST on every connect by itself.
    func connect() async {
        await account.connect(to: server)
    }

    /// The app's lifecycle, forwarded: the socket closes cleanly in the background; in the
    /// foreground, or when the network path changes, the account reconnects and catches up.
    func appDidEnterBackground() async { await account.enterBackground() }
    func appWillEnterForeground() async { await account.enterForeground() }
    func networkPathChanged() async { await account.networkChanged() }

    /// Ends the session for this run of the app; the next `start` resumes where it stopped.
    func close() async throws {
        await account.shutdown()
        try store.close()
    }
}

/// What a chat screen's model does with an account's events: every readable message that
/// arrives or is decrypted late goes to `show`; the other events drive banners and badges.
func present(_ events: AsyncStream<AccountEvent>, of session: ChatSession,
             show: @Sendable (TimelineItem) async -> Void) async throws {
    let timeline = TimelineReader(store: session.store)
    for await event in events {
        switch event {
        case .timeline(let changes):
            // One event per commit; events carry ids only, the text is read from the store.
            for change in changes {
                guard let item = try await timeline.item(messageID: change.messageID) else { continue }
                if item.state == .decrypted { await show(item) }
            }
            // Our own messages carry their delivery state (`item.delivery`: sent, delivered);
            // one not posted yet is a local echo (`item.isLocalEcho`), replaced by the posted
            // row with the same `localID` (`timelineUpdates` below keeps that bookkeeping);
            // a new device's older history is `.sentBeforeThisDevice`, not an error.
        case .delivery(let change):
            _ = change.state  // queued → sending → sent → delivered, or failed (offer a retry)
        case .identity(let notice):
            _ = notice  // a new device, a changed identity, an unexpected member: tell the user
        case .connection(let state):
            _ = state  // connected, reconnecting, polling…: an offline banner
        case .sessionEnded:
            return  // the server refused our tokens: ask the user to sign in again
        default:
            continue
        }
    }
}

/// What a conversation screen binds to: the channel's rows as the store holds them, kept
/// current by `timelineUpdates` — a snapshot, then the changes of each commit. Our own message
/// is a row at once (a local echo: its text and outbox state, `queued` while the server is
/// away); the server's 201 removes the echo and inserts the posted row in one update.
func observeConversation(_ channelID: ChannelID, of session: ChatSession,
                         render: @Sendable ([TimelineItem]) async -> Void) async throws {
    var rows: [TimelineItem] = []
    for try await update in session.account.timelineUpdates(channelID: channelID) {
        switch update {
        case .reset(let items):
            rows = items  // the first update, and again if this screen fell behind
        case .changes(let diffs):
            for diff in diffs {
                switch diff {
                case .inserted(let item), .updated(let item):
                    if let index = rows.firstIndex(where: { $0.messageID == item.messageID }) { rows[index] = item } else { rows.append(item) }
                case .removed(let messageID):
                    rows.removeAll { $0.messageID == messageID }
                }
            }
            // Posted rows by (createdAt, messageID), then the local echoes in sending order.
            rows.sort { ($0.isLocalEcho ? 1 : 0, $0.createdAt.microseconds, $0.messageID.rawValue)
                < ($1.isLocalEcho ? 1 : 0, $1.createdAt.microseconds, $1.messageID.rawValue) }
        }
        await render(rows)
    }
}

/// Sends `text` to the user named `username` in their direct-message channel. The message is
/// encrypted and stored before any network I/O; the outbox posts it (and retries) in the
/// background.
func sendDirectMessage(_ text: String, to username: String, from session: ChatSession) async throws -> SendReport {
    guard let user = try await session.account.user(named: username) else { throw UnknownUser(username: username) }
    let channel = try await session.account.openDirectMessage(with: user.id)
    return try await session.account.send(text: text, to: channel.id)
}

/// Signs this user in on another device (a laptop next to the phone): a new store file and
/// key, and `login` instead of `register`. Everyone who already talks to this user holds the
/// new device until they approve it; so does the user's own phone.
func addDevice(serverURL: String, storeURL: URL, keychainKey: SecretBytes, username: String, password: String,
               deviceName: String) async throws -> ChatSession {
    let server = try ChatServer(url: serverURL)
    let store = try KeyStore.open(at: storeURL, key: StoreKey(keychainKey))
    let account = try await server.login(username: username, password: password, deviceName: deviceName, store: store)
    return ChatSession(account: account, store: store, server: server)
}

/// One line of the approval screen: a device held back from our messages, and the safety
/// number with `peer` as it will be once it is approved — the number the user compares with
/// the one on the peer's screen (or scans) before approving.
struct HeldDeviceReview: Sendable {
    let device: HeldRecipient
    let numberIfApproved: SafetyNumber
}

/// The approval screen's content: every held device of `peer`, with the number to compare.
func reviewHeldDevices(of peer: UserID, in session: ChatSession) async throws -> [HeldDeviceReview] {
    let held = try await session.account.pendingRecipients().filter { $0.device.userID == peer }
    guard !held.isEmpty else { return [] }
    let number = try await session.account.safetyNumberIfApproved(with: peer)
    return held.map { HeldDeviceReview(device: $0, numberIfApproved: number) }
}

/// The user compared the numbers and tapped *approve*: the device gets our messages from now
/// on (never earlier ones), in every conversation.
func approve(_ review: HeldDeviceReview, in session: ChatSession) async throws {
    _ = try await session.account.approveDevice(review.device.device.deviceID)
}

/// The server has no user of that name.
struct UnknownUser: Error {
    let username: String
}

/// Starts one session per account the app is signed in to, each in a store file of its own
/// under `folder`, with its own key from the keychain: the accounts share nothing.
func startAll(_ logins: [(username: String, password: String)], serverURL: String, folder: URL,
              keychainKey: (String) -> SecretBytes) async throws -> [ChatSession] {
    var sessions: [ChatSession] = []
    for login in logins {
        let storeURL = folder.appendingPathComponent("\(login.username).sqlite")
        sessions.append(try await ChatSession.start(serverURL: serverURL, storeURL: storeURL,
                                                    keychainKey: keychainKey(login.username),
                                                    username: login.username, password: login.password))
    }
    return sessions
}
