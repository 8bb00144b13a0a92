import E2EEKeyStore
import E2EEMessaging
import E2EETransport
import Foundation
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The development server turned attacker (THREATS T11): adds a device it controls to a user
/// through `POST /_dev/users/{user_id}/devices`, optionally removing one of theirs first, and
/// gives back that device as a running account (its own keys, bootstrapped), so a test can
/// see what the attacker can read.
extension MessagingHarness {
    /// A device the server adds to `userID` (replacing `replacing`, when given), with keys the
    /// attacker holds.
    func injectDevice(into userID: String, replacing: String? = nil,
                      configuration: AccountConfiguration = MessagingHarness.recipientConfiguration) async throws -> Account {
        var request = URLRequest(url: try #require(URL(string: "\(server.baseURL)/_dev/users/\(userID)/devices")))
        request.httpMethod = "POST"
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        var body: [String: String] = ["device_name": "attacker"]
        if let replacing { body["replace_device_id"] = replacing }
        request.httpBody = try JSONEncoder().encode(body)
        let (data, response) = try await URLSession.shared.data(for: request)
        guard (response as? HTTPURLResponse)?.statusCode == 201 else { throw AttackError.refused(String(decoding: data, as: UTF8.self)) }
        let tokens = try JSONDecoder().decode(TokenResponse.self, from: data)
        let store = try KeyStore.inMemory()
        let session = AuthSession(keyStore: store, serverURL: server.baseURL)
        try await session.adopt(tokens)
        let account = try await Account.open(server: HTTPChatServer(baseURL: server.baseURL, session: session, sleep: { _ in }), store: store,
                                             configuration: configuration)
        _ = try await account.bootstrapKeys()
        return account
    }

    /// Registers `username` with §5's default recipient policies.
    func registerWithDefaults(_ username: String, store: KeyStore? = nil) async throws -> Account {
        try await register(username, store: store, configuration: MessagingHarness.recipientConfiguration)
    }

    /// Alice and Bob (default policies) in a DM after Alice's first message: first contact
    /// made, so every device that appears from now on is new (docs/spec/protocol.md §5).
    func dmAfterFirstContact() async throws -> (alice: Account, bob: Account, dm: ChatChannel) {
        let alice = try await registerWithDefaults("alice")
        let bob = try await registerWithDefaults("bob")
        let dm = try await alice.openDirectMessage(with: bob.userID)
        _ = try await bob.openDirectMessage(with: alice.userID)
        try await alice.send(text: "hello", to: dm.id)
        await alice.waitForOutbox()
        return (alice, bob, dm)
    }

    /// What went wrong mounting an attack.
    enum AttackError: Error {
        /// The server refused the injection.
        case refused(String)
    }
}

/// The decrypted texts `account` can read in `channelID`, after catching up.
func readableTexts(_ account: Account, _ channelID: ChannelID) async throws -> [String] {
    try await account.sync()
    return try await account.timeline(channelID: channelID).compactMap { $0.state == .decrypted ? $0.text : nil }
}
