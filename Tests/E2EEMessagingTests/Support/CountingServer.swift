import E2EEMessaging
import Foundation

/// Counts calls across tasks.
final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    var value: Int { lock.withLock { count } }
    func increment() { lock.withLock { count += 1 } }
}

/// A ``ChatServerAPI`` that counts what it is asked: an empty channel list, and a key bundle
/// whose one-time prekey list it keeps (upload replaces it, `one-time` appends). Every other
/// call fails.
final class CountingServer: UnansweredServerCalls, @unchecked Sendable {
    private let reads = Counter()
    private let lock = NSLock()
    private var offered = 0
    private var keyRequests = 0
    /// `GET /channels` calls made.
    var listReads: Int { reads.value }
    /// One-time prekeys the server offers now.
    var offeredOneTimePrekeys: Int { lock.withLock { offered } }
    /// Key uploads made (`POST /keys/upload` and `POST /keys/one-time`).
    var keyUploads: Int { lock.withLock { keyRequests } }

    func uploadKeys(_ upload: KeyBundleUpload) async throws {
        lock.withLock {
            keyRequests += 1
            offered = upload.oneTimePreKeys.count
        }
    }

    func addOneTimePreKeys(deviceID: DeviceID, keys: [String]) async throws -> Int {
        lock.withLock {
            keyRequests += 1
            offered += keys.count
            return offered
        }
    }

    func bundle(deviceID: DeviceID) async throws -> DeviceBundle { throw ServerError.notFound(detail: nil) }

    func channels() async throws -> [ServerChannel] {
        reads.increment()
        return []
    }
}
