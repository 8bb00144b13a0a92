import E2EECrypto
import E2EEKeyStore
@_spi(Benchmarks) @testable import E2EEMessaging
import Foundation
import Testing

/// Issue 16, item 8: a flood of socket events naming channels the account does not know must
/// not turn into a flood of `GET /channels`.
@Suite("Unknown-channel event flood")
struct UnknownChannelFloodTests {
    @Test("5,000 message.new events for unknown channels cost one channel-list read, not 5,000")
    func floodIsCoalescedAndRateLimited() async throws {
        let server = CountingServer()
        let store = try KeyStore.inMemory()
        let device = LocalDevice(userID: UserID(newID()), deviceID: DeviceID(newID()), identity: E2EECrypto.IdentityKeyPair())
        let account = Account(device: device, server: server, store: store, configuration: AccountConfiguration())
        let engine = account.syncEngine
        let peer = RemotePeer(userID: newID())
        let clock = ContinuousClock()
        let started = clock.now
        for index in 0..<5_000 {
            await engine.received(.messageNew(peer.posted("x", kind: nil, channel: newID(), at: t(Int64(index)))))
        }
        // One read, plus at most one per 10 s the flood lasted (a loaded machine is slower).
        let allowed = 1 + Int(started.duration(to: clock.now).components.seconds / 10)
        #expect(server.listReads <= allowed, "\(server.listReads) reads for 5,000 events")
        let afterFlood = server.listReads
        // Concurrent misses share the refresh that is running (here: none is due, none starts).
        await withTaskGroup(of: Void.self) { group in
            for index in 0..<200 {
                group.addTask { await engine.received(.messageNew(peer.posted("x", kind: nil, channel: newID(), at: t(Int64(index))))) }
            }
        }
        #expect(server.listReads <= afterFlood + 1)
    }

    @Test("concurrent misses share one refresh; once the interval passed, a miss refreshes again")
    func gateCoalescesAndSpaces() async throws {
        let time = ManualDuration()
        let gate = DirectoryRefreshGate(minimumInterval: .seconds(10), now: { time.value })
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
        time.advance(.seconds(9))
        #expect(try await gate.refreshIfDue(refresh) == nil)
        time.advance(.seconds(1))
        #expect(try await gate.refreshIfDue(refresh) != nil, "10 s later a miss refreshes again")
        #expect(reads.value == 2)
    }
}

/// A monotonic time tests move by hand.
final class ManualDuration: @unchecked Sendable {
    private let lock = NSLock()
    private var current: Duration = .zero
    var value: Duration { lock.withLock { current } }
    func advance(_ by: Duration) { lock.withLock { current += by } }
}
