import Foundation

/// Wakes any number of readers when something they re-read may have changed. Each reader's
/// stream keeps at most one wake-up it has not taken: signals coalesce, and none is lost, because
/// a reader re-reads the whole state on a wake-up rather than applying the signal itself.
final class ChangeSignal: @unchecked Sendable {
    private let lock = NSLock()
    private var next = 0
    private var readers: [Int: AsyncStream<Void>.Continuation] = [:]

    /// A new reader: one element per wake-up from now on, until ``finish()``.
    func stream() -> AsyncStream<Void> {
        let (stream, continuation) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
        let id = lock.withLock {
            next += 1
            readers[next] = continuation
            return next
        }
        continuation.onTermination = { [weak self] _ in
            guard let self else { return }
            self.lock.withLock { _ = self.readers.removeValue(forKey: id) }
        }
        return stream
    }

    /// Wakes every reader.
    func signal() {
        lock.withLock { for reader in readers.values { reader.yield() } }
    }

    /// Ends every reader's stream.
    func finish() {
        let ending = lock.withLock {
            defer { readers.removeAll() }
            return Array(readers.values)
        }
        for reader in ending { reader.finish() }
    }
}
