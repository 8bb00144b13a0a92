/// What moves a running transfer, one at a time: the link messages this device opens and a
/// tick every ``TransferTiming/tick`` for its timers (their deadlines are read from the
/// configuration's clock, so tests move time by moving that clock).
final class TransferInputs: Sendable {
    /// One input.
    enum Input: Sendable {
        /// A link message opened and committed.
        case message(OpenedLinkMessage)
        /// Time to check the timers.
        case tick

        var isTick: Bool {
            if case .tick = self { true } else { false }
        }
    }

    /// The inputs, in the order they came.
    let stream: AsyncStream<Input>
    private let feeder: Task<Void, Never>
    private let ticker: Task<Void, Never>

    /// Inputs from `messages` and the ticker, until ``stop()``.
    init(messages: AsyncStream<OpenedLinkMessage>) {
        let (stream, continuation) = AsyncStream<Input>.makeStream(bufferingPolicy: .bufferingNewest(2_000))
        self.stream = stream
        feeder = Task {
            for await message in messages { continuation.yield(.message(message)) }
            continuation.finish()
        }
        ticker = Task {
            while !Task.isCancelled {
                try? await Task.sleep(for: TransferTiming.tick)
                continuation.yield(.tick)
            }
        }
    }

    /// Stops feeding.
    func stop() {
        feeder.cancel()
        ticker.cancel()
    }
}
