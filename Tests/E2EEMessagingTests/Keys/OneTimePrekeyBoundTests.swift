import E2EECrypto
@_spi(StoreInternals) import E2EEKeyStore
@_spi(Benchmarks) @testable import E2EEMessaging
import Foundation
import Testing

/// Issue 16, item 4: one-time prekeys do not pile up — not from forged `keys.low_otp` frames,
/// and not from hundreds of genuine-looking low counts.
@Suite("One-time prekey bounds")
struct OneTimePrekeyBoundTests {
    private func account() async throws -> (Account, CountingServer) {
        let server = CountingServer()
        let device = LocalDevice(userID: UserID(newID()), deviceID: DeviceID(newID()), identity: E2EECrypto.IdentityKeyPair())
        let account = Account(device: device, server: server, store: try KeyStore.inMemory(), configuration: AccountConfiguration())
        _ = try await account.bootstrapKeys()
        return (account, server)
    }

    private func unconsumed(_ account: Account) async throws -> Int {
        try await account.store.oneTimePrekeyCount(state: .published) + account.store.oneTimePrekeyCount(state: .pendingUpload)
    }

    private func rows(_ account: Account) async throws -> Int {
        try await unconsumed(account) + account.store.oneTimePrekeyCount(state: .consumed)
    }

    @Test("300 forged keys.low_otp frames: one is acted on, the local set stays at 50 unconsumed")
    func forgedLowFramesAreCheapToIgnore() async throws {
        let (account, server) = try await account()
        #expect(try await unconsumed(account) == 50)
        let uploadsBefore = server.keyUploads
        let engine = account.syncEngine
        for _ in 0..<300 {
            await engine.received(.lowOneTimePreKeys(deviceID: account.deviceID, remaining: 0))
        }
        #expect(server.keyUploads - uploadsBefore <= 1)
        #expect(try await unconsumed(account) == 50)
        #expect(try await rows(account) <= ProtocolLimits.maxLocalOneTimePrekeys)
        #expect(server.offeredOneTimePrekeys == 50, "the server offers exactly the unconsumed set")
    }

    @Test("300 low counts acted on (bundle fetches by someone else): replaced, not added; rows stay bounded")
    func replenishReplacesPastTheCap() async throws {
        let (account, server) = try await account()
        for _ in 0..<300 {
            try await account.replenishOneTimePrekeys(serverRemaining: 3)
        }
        #expect(try await unconsumed(account) == 50)
        #expect(try await rows(account) <= ProtocolLimits.maxLocalOneTimePrekeys)
        #expect(server.offeredOneTimePrekeys == 50)
        // The ones counted as handed out stay usable for the grace window (§2): consumed, not wiped.
        #expect(try await account.store.oneTimePrekeyCount(state: .consumed) > 0)
    }
}
