import E2EETestSupport
import E2EEMessaging
import Foundation

/// A ``ChatServerAPI`` whose only working call is `webSocketTicket()`: numbered tickets, or
/// scripted failures. Every other call fails (the supervisor never makes them).
final class FakeTicketServer: UnansweredServerCalls, @unchecked Sendable {
    private let lock = NSLock()
    private var script: [ServerError] = []
    private var issued = 0
    /// Ticket requests made (successful or not).
    let requests = Watched<Int>(0)

    /// The next `count` ticket requests fail with `error`.
    func failNext(_ count: Int, with error: ServerError) {
        lock.withLock { script += Array(repeating: error, count: count) }
    }

    func webSocketTicket() async throws -> String {
        requests.update { $0 += 1 }
        let outcome: Result<String, ServerError> = lock.withLock {
            if !script.isEmpty { return .failure(script.removeFirst()) }
            issued += 1
            return .success("ticket-\(issued)")
        }
        return try outcome.get()
    }

    private var healthError: ServerError? = .notFound(detail: "no health route")
    /// Health checks answered so far.
    let healthChecks = Watched<Int>(0)

    /// What `checkHealth()` answers from now on: nil is a 200, else that error.
    func answerHealth(with error: ServerError?) {
        lock.withLock { healthError = error }
    }

    func checkHealth() async throws {
        let error: ServerError? = lock.withLock { healthError }
        healthChecks.update { $0 += 1 }
        if let error { throw error }
    }
}
