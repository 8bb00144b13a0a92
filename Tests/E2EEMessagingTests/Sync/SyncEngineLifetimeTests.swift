import E2EECrypto
import E2EEKeyStore
@_spi(Benchmarks) @testable import E2EEMessaging
import E2EETestSupport
import Foundation
import Testing

/// The account builds its sync engine once and keeps it; the engine holds the account weakly,
/// so neither keeps the other alive — connected or not.
@Suite("Sync engine lifetime")
struct SyncEngineLifetimeTests {
    private func account(_ server: any ChatServerAPI) throws -> Account {
        let device = LocalDevice(userID: UserID(newID()), deviceID: DeviceID(newID()), identity: E2EECrypto.IdentityKeyPair())
        return Account(device: device, server: server, store: try KeyStore.inMemory(), configuration: AccountConfiguration())
    }

    @Test("one engine per account: every caller gets the same one, with the same state")
    func builtOnce() async throws {
        let account = try account(ConnectableServer())
        #expect(account.syncEngine === account.syncEngine)
        await account.syncEngine.recordSyncFailure(channelID: ChannelID(newID()), ServerError.forbidden(detail: nil))
        #expect(await account.channelSyncFailures().count == 1, "what the engine recorded is what the account reports")
    }

    @Test("a connected account is released when the app lets go of it; its engine then stops quietly")
    func connectedAccountIsReleased() async throws {
        let server = ConnectableServer()
        let connector = FakeConnector()
        weak var released: Account?
        let engine: SyncEngine
        let supervisor: ConnectionSupervisor?
        do {
            let account = try account(server)
            released = account
            engine = account.syncEngine
            await account.connect(using: connector)
            #expect(await connector.opened.wait { !$0.isEmpty })
            #expect(await server.channelReads.wait { $0 > 0 }, "the connection's catch-up ran through the engine")
            supervisor = await account.supervisor
        }
        let clock = ContinuousClock()
        let deadline = clock.now + .seconds(10)
        while released != nil, clock.now < deadline { try await Task.sleep(for: .milliseconds(10)) }
        #expect(released == nil, "neither the engine nor the connection keeps the account alive")
        await #expect(throws: CancellationError.self) { try await engine.catchUpAll() }
        await engine.received(.typing(userID: UserID(newID()), channelID: ChannelID(newID()), started: true))  // dropped, no crash
        await supervisor?.stop()
    }
}

/// Answers what connecting needs: a ticket, an empty channel list, key uploads.
private final class ConnectableServer: UnansweredServerCalls, @unchecked Sendable {
    /// `GET /channels` calls made.
    let channelReads = Watched<Int>(0)

    func webSocketTicket() async throws -> String { "ticket" }

    func channels() async throws -> [ServerChannel] {
        channelReads.update { $0 += 1 }
        return []
    }

    func uploadKeys(_ upload: KeyBundleUpload) async throws {}
}
