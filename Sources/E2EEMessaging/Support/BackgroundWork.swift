import Foundation

/// Work an account starts on its own, off any caller's task (holding a device it discovered,
/// republishing keys), kept so that shutting down can cancel it and wait for it: once
/// ``finish()`` returned, none of it touches the store, and nothing new starts.
final class BackgroundWork: @unchecked Sendable {
    private let lock = NSLock()
    private var tasks: [UUID: Task<Void, Never>] = [:]
    private var finished = false

    /// Runs `work` in a task of its own, unless the account is shutting down.
    func run(_ work: @escaping @Sendable () async -> Void) {
        let id = UUID()
        lock.withLock {
            guard !finished else { return }
            tasks[id] = Task { [weak self] in
                await work()
                self?.done(id)
            }
        }
    }

    /// Cancels the work still running, waits until it has ended, and refuses new work.
    func finish() async {
        let running = lock.withLock { () -> [Task<Void, Never>] in
            finished = true
            defer { tasks.removeAll() }
            return Array(tasks.values)
        }
        for task in running { task.cancel() }
        for task in running { await task.value }
    }

    private func done(_ id: UUID) {
        lock.withLock { _ = tasks.removeValue(forKey: id) }
    }
}
