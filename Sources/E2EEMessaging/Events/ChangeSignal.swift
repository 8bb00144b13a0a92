/// Wakes any number of readers when something they re-read may have changed. Each reader's
/// stream keeps at most one wake-up it has not taken: signals coalesce, and none is lost, because
/// a reader re-reads the whole state on a wake-up rather than applying the signal itself.
final class ChangeSignal: Sendable {
    private let readers = SubscriberTable<AsyncStream<Void>.Continuation>()

    /// A new reader: one element per wake-up from now on, until ``finish()``.
    func stream() -> AsyncStream<Void> {
        let (stream, continuation) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
        readers.add(continuation, endingWith: continuation)
        return stream
    }

    /// Wakes every reader.
    func signal() {
        readers.forEach { $0.yield() }
    }

    /// Ends every reader's stream.
    func finish() {
        for reader in readers.removeAll() { reader.finish() }
    }
}
