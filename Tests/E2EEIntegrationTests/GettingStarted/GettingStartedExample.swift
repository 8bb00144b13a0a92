import E2EECrypto
import E2EEKeyStore
import E2EEMessaging
import E2EETransport
import Foundation

// The code of the "Getting started" article
// (Sources/E2EEMessaging/E2EEMessaging.docc/GettingStarted.md). Every Swift block of the article
// is a verbatim excerpt of this file: GettingStartedTests checks that, and runs this code against
// the development server, so the article cannot rot. Edit the two together.

/// One account of the app: its own store file, its own server client and its `Account` actor.
/// An app signed in to several accounts (or servers) keeps one of these per account.
struct ChatSession: Sendable {
    let account: Account
    let store: KeyStore
    let webSocketURL: String

    /// Opens the store at `storeURL` and the account it holds, or, when the store is new,
    /// registers `username` on `serverURL` and publishes this device's keys.
    static func start(serverURL: String, storeURL: URL, passphrase: SecretBytes,
                      username: String, password: String) async throws -> ChatSession {
        // One SQLite file per account. Every secret in it is sealed under a key derived with
        // Argon2id from `passphrase`, which the app keeps in the platform keychain.
        let store = try KeyStore.open(at: storeURL, passphrase: passphrase)
        let account: Account
        if try await store.loadAccount() != nil {
            // A later launch: the tokens saved (sealed) in the store sign the requests.
            let server = HTTPChatServer(baseURL: serverURL, session: try await AuthSession.restored(from: store))
            account = try await Account.open(server: server, store: store)
        } else {
            // The first launch: a new user and its first device. `Account.login` adds a new
            // device to an existing user instead.
            let server = HTTPChatServer(baseURL: serverURL, session: AuthSession(keyStore: store, serverURL: serverURL))
            account = try await Account.register(username: username, password: password, deviceName: "phone",
                                                 server: server, store: store)
            _ = try await account.bootstrapKeys()  // identity, signed prekey, one-time prekeys
        }
        let webSocketURL = serverURL.replacingOccurrences(of: "http", with: "ws", options: .anchored) + "/ws"
        return ChatSession(account: account, store: store, webSocketURL: webSocketURL)
    }

    /// Opens the realtime connection. The account reconnects with backoff, falls back to
    /// polling, and catches up over REST on every connect by itself.
    func connect() async {
        await account.connect(using: WebSocketRealtimeConnector(webSocketURL: webSocketURL))
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
        case .timeline(let change):
            // Events carry ids only; the text is read from the store.
            guard let item = try await timeline.item(messageID: change.messageID) else { continue }
            if item.state == .decrypted { await show(item) }
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

/// Sends `text` to `userID` in their direct-message channel. The message is encrypted and
/// stored before any network I/O; the outbox posts it (and retries) in the background.
func sendDirectMessage(_ text: String, to userID: String, from session: ChatSession) async throws -> OutboxMessage {
    let channel = try await session.account.openDirectMessage(with: userID)
    return try await session.account.send(text: text, to: channel.id)
}

/// Starts one session per account the app is signed in to, each in a store file of its own
/// under `folder`, with its own key from the keychain: the accounts share nothing.
func startAll(_ logins: [(username: String, password: String)], serverURL: String, folder: URL,
              keychainPassphrase: (String) -> SecretBytes) async throws -> [ChatSession] {
    var sessions: [ChatSession] = []
    for login in logins {
        let storeURL = folder.appendingPathComponent("\(login.username).sqlite")
        sessions.append(try await ChatSession.start(serverURL: serverURL, storeURL: storeURL,
                                                    passphrase: keychainPassphrase(login.username),
                                                    username: login.username, password: login.password))
    }
    return sessions
}
