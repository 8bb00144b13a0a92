import E2EEMessaging
import Testing

@Suite("Connection policy")
struct ConnectionPolicyTests {
    private let policy = ConnectionPolicy.standard

    @Test("backoff is 0 s, then 0.5 s sixteen times, then 1, 2, 4, 8, 16 s, capped at 30 s")
    func backoffSequence() {
        let delays = (1...25).map { policy.reconnectDelay(attempt: $0, unit: 0.5) }
        let quick = Array(repeating: Duration.milliseconds(500), count: 16)
        #expect(delays == [.zero] + quick + [1, 2, 4, 8, 16, 30, 30, 30].map { Duration.seconds($0) })
    }

    @Test("without quick retries the backoff doubles from the base at once")
    func backoffWithoutQuickRetries() {
        let plain = ConnectionPolicy(quickRetries: 0)
        let delays = (1...8).map { plain.reconnectDelay(attempt: $0, unit: 0.5) }
        #expect(delays == [0, 1, 2, 4, 8, 16, 30, 30].map { Duration.seconds($0) })
    }

    @Test("polls relax from 2 s to the 30 s interval: 2, 4, 8, 16, 30, 30 s apart")
    func pollCadence() {
        let delays = (1...7).map { policy.pollDelay(after: $0) }
        #expect(delays == [2, 4, 8, 16, 30, 30, 30].map { Duration.seconds($0) })
        #expect(policy.pollDelay(after: 0) == .seconds(2))
        #expect(policy.pollDelay(after: 10_000) == .seconds(30))
        #expect(policy.pollingStart.map { $0 < .seconds(5) } == true)
    }

    @Test("jitter stays within ±25 % and never passes the cap")
    func jitterBounds() {
        for attempt in 2...24 {
            let nominal = policy.reconnectDelay(attempt: attempt, unit: 0.5)
            let low = policy.reconnectDelay(attempt: attempt, unit: 0)
            let high = policy.reconnectDelay(attempt: attempt, unit: 1)
            #expect(low == nominal * 0.75)
            #expect(high == min(nominal * 1.25, .seconds(30)))
            for unit in stride(from: 0.0, through: 1.0, by: 0.125) {
                let delay = policy.reconnectDelay(attempt: attempt, unit: unit)
                #expect(delay >= low && delay <= high && delay <= .seconds(30))
            }
        }
        #expect(policy.reconnectDelay(attempt: 3, unit: 0) == .milliseconds(375))
        #expect(policy.reconnectDelay(attempt: 3, unit: 1) == .milliseconds(625))
        #expect(policy.reconnectDelay(attempt: 19, unit: 0) == .milliseconds(1500))
        #expect(policy.reconnectDelay(attempt: 19, unit: 1) == .milliseconds(2500))
    }

    @Test("the first retry is immediate whatever the draw")
    func firstRetryIsImmediate() {
        #expect(policy.reconnectDelay(attempt: 1, unit: 0) == .zero)
        #expect(policy.reconnectDelay(attempt: 1, unit: 1) == .zero)
        #expect(policy.reconnectDelay(attempt: 0, unit: 1) == .zero)
    }

    @Test("a draw outside 0…1 or not a number is clamped, never a longer wait")
    func outOfRangeDraw() {
        #expect(policy.reconnectDelay(attempt: 4, unit: 7) == policy.reconnectDelay(attempt: 4, unit: 1))
        #expect(policy.reconnectDelay(attempt: 4, unit: -3) == policy.reconnectDelay(attempt: 4, unit: 0))
        #expect(policy.reconnectDelay(attempt: 4, unit: .nan) == .milliseconds(500))
        #expect(policy.reconnectDelay(attempt: 20, unit: .nan) == .seconds(4))
        #expect(policy.reconnectDelay(attempt: 10_000, unit: 1) == .seconds(30))
    }

    @Test("probing while polling waits the capped interval, jittered downwards only")
    func probeDelay() {
        #expect(policy.probeDelay(unit: 0.5) == .seconds(30))
        #expect(policy.probeDelay(unit: 1) == .seconds(30))
        #expect(policy.probeDelay(unit: 0) == .milliseconds(22_500))
    }

    @Test("429: Retry-After first, then doubling up to 60 s")
    func rateLimitEscalation() {
        let delays = (1...5).map { policy.rateLimitDelay(retryAfter: 10, refusals: $0) }
        #expect(delays == [10, 20, 40, 60, 60].map { Duration.seconds($0) })
        #expect(policy.rateLimitDelay(retryAfter: nil, refusals: 1) == .seconds(10))
        #expect(policy.rateLimitDelay(retryAfter: -5, refusals: 1) == .zero)
    }

    @Test("429: a Retry-After longer than the cap is still honoured")
    func rateLimitNeverShorterThanAsked() {
        #expect(policy.rateLimitDelay(retryAfter: 90, refusals: 1) == .seconds(90))
        #expect(policy.rateLimitDelay(retryAfter: 90, refusals: 3) == .seconds(90))
    }

    @Test("counts below one are raised, jitter is clamped to 0…1")
    func sanitisedConfiguration() {
        let odd = ConnectionPolicy(jitter: 3, failuresBeforePolling: 0)
        #expect(odd.jitter == 1)
        #expect(odd.failuresBeforePolling == 1)
    }
}
