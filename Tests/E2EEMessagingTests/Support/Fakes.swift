import E2EECrypto
@_spi(Benchmarks) @testable import E2EEMessaging
import Foundation

/// The listed identities of users' devices (`GET /keys/{user}/bundles`), as a test sets them.
/// It can fail (server unreachable) and can hold callers until the test lets them go.
final class FakeListedIdentities: ListedIdentityProviding, @unchecked Sendable {
    private let lock = NSLock()
    private var listed: [String: [String: IdentityBlob]] = [:]
    private var failing = false
    private var calls = 0
    private var hold: (@Sendable (String) async -> Void)?

    func list(_ peer: RemotePeer) { list(userID: peer.userID, deviceID: peer.deviceID, identity: peer.identity.publicIdentity) }

    func list(userID: String, deviceID: String, identity: IdentityBlob) {
        lock.withLock { listed[userID, default: [:]][deviceID] = identity }
    }

    func setFailing(_ value: Bool) { lock.withLock { failing = value } }

    /// Callers wait in `body` (given the user asked for) before answering.
    func setHold(_ body: (@Sendable (String) async -> Void)?) { lock.withLock { hold = body } }

    var callCount: Int { lock.withLock { calls } }

    func listedIdentities(userID: UserID, refresh: Bool) async throws -> [String: IdentityBlob] {
        let waiting = lock.withLock { () -> (@Sendable (String) async -> Void)? in
            calls += 1
            return hold
        }
        if let waiting { await waiting(userID.rawValue) }
        return try lock.withLock {
            if failing { throw ServerError.transport("unreachable (test)") }
            return listed[userID.rawValue] ?? [:]
        }
    }
}

/// A one-shot signal a test can wait on (no sleeps). Once fired (or cancelled) it stays open.
final class Signal: @unchecked Sendable {
    private let lock = NSLock()
    private var fired = false
    private var waiters: [CheckedContinuation<Void, Never>] = []

    func fire() {
        let toResume = lock.withLock { () -> [CheckedContinuation<Void, Never>] in
            fired = true
            defer { waiters.removeAll() }
            return waiters
        }
        for waiter in toResume { waiter.resume() }
    }

    /// Waits until fired; a cancelled waiter (a test over its time limit) is let go too.
    func wait() async {
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let resumeNow = lock.withLock { () -> Bool in
                    if fired { return true }
                    waiters.append(continuation)
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        } onCancel: {
            fire()
        }
    }
}

/// Records the one-time prekey ids the pipeline reports consumed.
final class ConsumedPrekeys: @unchecked Sendable {
    private let lock = NSLock()
    private var ids: [UInt32] = []

    var all: [UInt32] { lock.withLock { ids } }

    var callback: @Sendable ([UInt32]) -> Void { { [self] consumed in lock.withLock { ids += consumed } } }
}
