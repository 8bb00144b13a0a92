import E2EEMessaging
import NIOCore

/// An overall deadline for one request: connecting, sending, the answer's
/// head and its whole body together. AsyncHTTPClient's own timeout does not cover the body, and
/// the connection's read timeout restarts with every byte, so a server dripping its answer one
/// byte at a time would otherwise hold the caller forever.
enum RequestDeadline {
    /// Runs `work`; when it has not finished after `limit`, cancels it (AsyncHTTPClient closes
    /// the connection) and throws ``ServerError/transport(_:)``.
    /// - Throws: what `work` throws, or ``ServerError/transport(_:)`` when the deadline passed.
    static func run<T: Sendable>(within limit: TimeAmount, _ work: @escaping @Sendable () async throws -> T) async throws -> T {
        try await withThrowingTaskGroup(of: T?.self) { group in
            group.addTask { try await work() }
            group.addTask {
                try await Task.sleep(nanoseconds: UInt64(max(limit.nanoseconds, 0)))
                return nil
            }
            defer { group.cancelAll() }
            guard let first = try await group.next(), let value = first else {
                throw ServerError.transport("no complete answer within \(limit.nanoseconds / 1_000_000_000) s (request deadline)")
            }
            return value
        }
    }
}
