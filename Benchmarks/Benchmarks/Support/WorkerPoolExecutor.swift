import Dispatch

/// A task executor on Dispatch's global (non-cooperative) queue, whose width is the number of
/// cores.
///
/// package-benchmark runs an async benchmark by blocking the thread that called it on a
/// semaphore, and that thread is one of Swift's cooperative pool — on a 2-core machine, half of
/// it. A benchmark of code that uses more than one core runs its measured work with this
/// executor preferred (`withTaskExecutorPreference`), so its tasks, child tasks and default
/// actors get every core, as they would in an app.
public final class WorkerPoolExecutor: TaskExecutor, @unchecked Sendable {
    /// The shared instance.
    public static let shared = WorkerPoolExecutor()

    private let queue = DispatchQueue.global(qos: .userInitiated)

    /// Runs `job` on the global queue.
    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedTaskExecutor()
        queue.async { job.runSynchronously(on: executor) }
    }
}
