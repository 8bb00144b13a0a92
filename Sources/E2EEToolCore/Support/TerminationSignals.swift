import Dispatch
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// SIGINT and SIGTERM as something to await, so a long-running command (`listen`,
/// `keys replenish --watch`) shuts down cleanly instead of dying mid-write.
///
/// From ``init()`` until ``release()`` the two signals do not end the process; they are
/// delivered to ``next()``. After ``release()`` their default action is back (a second Ctrl-C
/// during a slow shutdown ends the process at once).
final class TerminationSignals: @unchecked Sendable {
    // Immutable after init; DispatchSource's resume and cancel are thread-safe.
    private let sources: [any DispatchSourceSignal]
    private let stream: AsyncStream<Int32>

    /// The signals handled.
    static let handled: [Int32] = [SIGINT, SIGTERM]

    /// Starts catching SIGINT and SIGTERM (synchronously: a signal sent after this returns is
    /// never lost).
    init() {
        let (stream, continuation) = AsyncStream<Int32>.makeStream(bufferingPolicy: .bufferingOldest(1))
        self.stream = stream
        sources = Self.handled.map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { continuation.yield(number) }
            source.resume()
            return source
        }
    }

    /// The first signal caught; `nil` when the waiting task is cancelled first.
    func next() async -> Int32? {
        for await number in stream { return number }
        return nil
    }

    /// Gives the signals their default action back.
    func release() {
        for source in sources { source.cancel() }
        for number in Self.handled { signal(number, SIG_DFL) }
    }

    /// The signal's name for messages.
    static func name(_ number: Int32) -> String {
        switch number {
        case SIGINT: "SIGINT"
        case SIGTERM: "SIGTERM"
        default: "signal \(number)"
        }
    }
}
