@_spi(StoreInternals) import E2EEKeyStore
import E2EECrypto
@_spi(Benchmarks) @testable import E2EEMessaging
import Foundation
import Testing

@Suite("Receive: a directory that does not answer")
struct ListedIdentityLimitTests {
    @Test("answers and errors pass through; no answer within the limit is an error at the limit, and the request is cancelled",
          .timeLimit(.minutes(1)))
    func limitPerCall() async throws {
        let listed = FakeListedIdentities()
        let peer = RemotePeer()
        listed.list(peer)
        let prompt = TimeLimitedListedIdentities(base: listed, limit: .seconds(5))
        #expect(try await prompt.listedIdentities(userID: UserID(peer.userID), refresh: false) == [peer.deviceID: peer.identity.publicIdentity])
        listed.setFailing(true)
        await #expect(throws: ServerError.transport("unreachable (test)")) {
            try await prompt.listedIdentities(userID: UserID(peer.userID), refresh: true)
        }

        // A directory that ignores cancellation still cannot hold the caller past the limit.
        let stuck = StuckDirectory()
        let limited = TimeLimitedListedIdentities(base: stuck, limit: .milliseconds(100))
        let start = ContinuousClock.now
        do {
            _ = try await limited.listedIdentities(userID: UserID(peer.userID), refresh: false)
            Issue.record("a stuck directory answered")
        } catch let error as ServerError {
            guard case .transport = error else { throw error }
        }
        #expect(ContinuousClock.now - start < .seconds(5))
        stuck.release()
        #expect(await stuck.sawCancellation())
    }

    @Test("a prekey message whose sender must be looked up waits in the pending queue when the directory hangs; the re-drive opens it",
          .timeLimit(.minutes(1)))
    func hangingDirectoryLeavesMessagePending() async throws {
        let h = try await ReceiveHarness.make(listedIdentityLimit: .milliseconds(100))
        let peer = try h.connectedPeer()
        let channel = ReceivingChannel.dm()
        let message = try peer.dm("hello", channel: channel.id.rawValue, to: [h.deviceID], at: t(1))
        let answer = Signal()
        h.listed.setHold { _ in await answer.wait() }
        let outcomes = try await h.ingest([message], channel)
        #expect(outcomes[message.id] == .pending(waitingFor: WaitingKey.identity(userID: UserID(peer.userID), deviceID: DeviceID(peer.deviceID))))
        #expect(try await h.store.pendingCount() == 1)

        answer.fire()
        h.listed.setHold(nil)
        #expect(try await h.pipeline.redrivePending().map(\.result) == [.decrypted])
        #expect(try await h.reader.item(messageID: message.id)?.text == "hello")
    }
}

/// A directory that never answers until released, and ignores cancellation meanwhile.
private final class StuckDirectory: ListedIdentityProviding, @unchecked Sendable {
    private let released = Signal()
    private let lock = NSLock()
    private var cancelled = false

    func listedIdentities(userID: UserID, refresh: Bool) async throws -> [String: IdentityBlob] {
        // A task of its own: the caller's cancellation does not reach the wait.
        let released = released
        await Task { await released.wait() }.value
        let wasCancelled = Task.isCancelled
        lock.withLock { cancelled = cancelled || wasCancelled }
        return [:]
    }

    func release() { released.fire() }

    /// Whether the released call found its task cancelled (waits up to 5 s for it to run).
    func sawCancellation() async -> Bool {
        for _ in 0..<500 {
            if lock.withLock({ cancelled }) { return true }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return false
    }
}
