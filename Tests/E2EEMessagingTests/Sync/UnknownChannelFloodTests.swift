import E2EECrypto
import E2EEKeyStore
@testable import E2EEMessaging
import Foundation
import Testing

/// Issue 16, item 8: a flood of socket events naming channels the account does not know must
/// not turn into a flood of `GET /channels`.
@Suite("Unknown-channel event flood")
struct UnknownChannelFloodTests {
    @Test("5,000 message.new events for unknown channels cost one channel-list read, not 5,000")
    func floodIsCoalescedAndRateLimited() async throws {
        let server = ChannelListServer()
        let store = try KeyStore.inMemory()
        let device = LocalDevice(userID: newID(), deviceID: newID(), identity: E2EECrypto.IdentityKeyPair())
        let account = Account(device: device, server: server, store: store, configuration: AccountConfiguration())
        let engine = await account.syncEngine
        let peer = RemotePeer(userID: newID())
        for index in 0..<5_000 {
            await engine.received(.messageNew(peer.posted("x", kind: nil, channel: newID(), at: t(Int64(index)))))
        }
        #expect(server.listReads == 1)
        // Concurrent misses share the refresh that is running (here: none is due, none starts).
        await withTaskGroup(of: Void.self) { group in
            for index in 0..<200 {
                group.addTask { await engine.received(.messageNew(peer.posted("x", kind: nil, channel: newID(), at: t(Int64(index))))) }
            }
        }
        #expect(server.listReads == 1)
    }

    @Test("concurrent misses share one refresh; once the interval passed, a miss refreshes again")
    func gateCoalescesAndSpaces() async throws {
        let gate = DirectoryRefreshGate(minimumInterval: .milliseconds(300))
        let reads = Counter()
        let refresh: @Sendable () async throws -> [ChatChannel] = {
            reads.increment()
            try await Task.sleep(nanoseconds: 50_000_000)
            return []
        }
        let answers = await withTaskGroup(of: Bool.self) { group in
            for _ in 0..<50 { group.addTask { (try? await gate.refreshIfDue(refresh)) != nil } }
            var refreshed = 0
            for await got in group where got { refreshed += 1 }
            return refreshed
        }
        #expect(reads.value == 1, "one refresh for 50 concurrent misses")
        #expect(answers >= 1)
        #expect(try await gate.refreshIfDue(refresh) == nil, "within the interval the cache answers")
        try await Task.sleep(nanoseconds: 400_000_000)
        #expect(try await gate.refreshIfDue(refresh) != nil)
        #expect(reads.value == 2)
    }
}

/// Counts calls across tasks.
final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    var value: Int { lock.withLock { count } }
    func increment() { lock.withLock { count += 1 } }
}

/// A ``ChatServerAPI`` whose channel list is empty and counted; every other call fails.
final class ChannelListServer: ChatServerAPI, @unchecked Sendable {
    private let reads = Counter()
    /// `GET /channels` calls made.
    var listReads: Int { reads.value }

    func channels() async throws -> [ServerChannel] {
        reads.increment()
        return []
    }

    private var unused: ServerError { .unexpectedStatus(501, body: "not used here") }

    func webSocketTicket() async throws -> String { throw unused }
    func register(username: String, password: String, deviceName: String) async throws -> TokenResponse { throw unused }
    func login(username: String, password: String, deviceName: String) async throws -> TokenResponse { throw unused }
    func logout() async throws { throw unused }
    func logoutAll() async throws { throw unused }
    func currentUser() async throws -> ServerUser { throw unused }
    func user(id: String) async throws -> ServerUser { throw unused }
    func searchUsers(query: String) async throws -> [ServerUser] { throw unused }
    func lookupUser(identity: String) async throws -> ServerUser { throw unused }
    func uploadKeys(_ upload: KeyBundleUpload) async throws { throw unused }
    func addOneTimePreKeys(deviceID: String, keys: [String]) async throws -> Int { throw unused }
    func bundles(userID: String) async throws -> [DeviceBundle] { throw unused }
    func bundle(deviceID: String) async throws -> DeviceBundle { throw unused }
    func uploadSenderKey(channelID: String, _ entry: SenderKeyEntry) async throws { throw unused }
    func senderKeys(channelID: String) async throws -> [SenderKeyEntry] { throw unused }
    func createChannel(name: String) async throws -> ServerChannel { throw unused }
    func channel(id: String) async throws -> ServerChannel { throw unused }
    func renameChannel(id: String, name: String) async throws -> ServerChannel { throw unused }
    func deleteChannel(id: String) async throws { throw unused }
    func joinChannel(id: String) async throws { throw unused }
    func leaveChannel(id: String) async throws { throw unused }
    func members(channelID: String) async throws -> [ChannelMember] { throw unused }
    func addMember(channelID: String, userID: String) async throws { throw unused }
    func openDirectMessage(userID: String) async throws -> ServerChannel { throw unused }
    func messages(channelID: String, before: ServerTimestamp?, limit: Int) async throws -> MessagePage { throw unused }
    func sendMessage(channelID: String, _ message: OutgoingMessage) async throws -> ServerMessage { throw unused }
    func editMessage(id: String, content: String) async throws -> ServerMessage { throw unused }
    func deleteMessage(id: String) async throws { throw unused }
    func devices() async throws -> [ServerDevice] { throw unused }
    func deleteDevice(id: String) async throws { throw unused }
}
