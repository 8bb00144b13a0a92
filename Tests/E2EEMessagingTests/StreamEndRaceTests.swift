@_spi(Benchmarks) @testable import E2EEMessaging
import Foundation
import Synchronization
import Testing

/// The fan-outs' streams end without taking their table's lock. The Swift runtime runs an
/// `AsyncStream`'s end (`onTermination`) while it holds the cancelled reader's own task lock, and
/// a publisher that yields under the table's lock needs that same task lock to wake the reader:
/// an end that took the table's lock deadlocked the two. It was seen in CI as a `link start`
/// that never exited: its task group was cancelled (ending the account's event stream) just as
/// the transfer published its last progress.
///
/// Each test mounts the race on plain threads — one publishes without pause, the other starts a
/// reader, lets it wait for an element and cancels it — and fails when a round stops making
/// progress (the two threads are then stuck for good; the test process goes on). Before the fix
/// every fan-out stuck within 20 rounds. One test at a time: the publishing thread takes a core,
/// and the rounds need the cooperative pool that the rest of the suite shares.
@Suite("Stream ends against publishing", .serialized)
struct StreamEndRaceTests {
    @Test("the account's event stream: a reader cancelled while events are published")
    func accountEvents() async {
        let broadcaster = EventBroadcaster()
        let outcome = await CancelWhilePublishing.run(
            publish: { broadcaster.publish(.channelsChanged) },
            read: { for await _ in broadcaster.events() {} })
        #expect(outcome.rounds == CancelWhilePublishing.rounds, "stuck after \(outcome.rounds) rounds")
    }

    @Test("timeline signals: a reader cancelled while commits are published")
    func timelineSignals() async {
        let broadcaster = EventBroadcaster()
        let change = TimelineChange(channelID: "c", messageID: "m", kind: .inserted)
        let outcome = await CancelWhilePublishing.run(
            publish: { broadcaster.publish(.timeline([change])) },
            read: { for await _ in broadcaster.timelineSignals() {} })
        #expect(outcome.rounds == CancelWhilePublishing.rounds, "stuck after \(outcome.rounds) rounds")
    }

    @Test("connection states: a reader cancelled while states are published")
    func connectionStates() async {
        let states = ConnectionStateBroadcaster()
        let outcome = await CancelWhilePublishing.run(
            publish: { states.publish(.connecting) },
            read: { for await _ in states.subscribe() {} })
        #expect(outcome.rounds == CancelWhilePublishing.rounds, "stuck after \(outcome.rounds) rounds")
    }

    @Test("change signals: a reader cancelled while signals are sent")
    func changeSignals() async {
        let signal = ChangeSignal()
        let outcome = await CancelWhilePublishing.run(
            publish: { signal.signal() },
            read: { for await _ in signal.stream() {} })
        #expect(outcome.rounds == CancelWhilePublishing.rounds, "stuck after \(outcome.rounds) rounds")
    }
}

/// The race, on two plain threads (a deadlock there never takes a thread of the test's
/// cooperative pool): `publish` runs without pause on one; the other, for each round, starts a
/// task running `read`, waits a little so that it waits for an element, cancels it and waits for
/// it to end.
private enum CancelWhilePublishing {
    static let rounds = 500
    /// A round that has not ended after this long is stuck (a round takes well under a
    /// millisecond; the margin is for a loaded machine whose cooperative pool is busy).
    static let stuckAfter: Duration = .seconds(45)

    /// What the two threads share.
    final class Flags: Sendable {
        /// Rounds ended.
        let done = Atomic<Int>(0)
        /// Set by the canceller once its rounds are done: the publisher stops.
        let stop = Atomic<Bool>(false)
    }

    struct Outcome {
        /// The rounds that ended.
        let rounds: Int
    }

    static func run(publish: @escaping @Sendable () -> Void, read: @escaping @Sendable () async -> Void) async -> Outcome {
        let flags = Flags()
        let publisher = Thread {
            while !flags.stop.load(ordering: .relaxed) {
                publish()
                sched_yield()  // the rest of a loaded machine gets its turn
            }
        }
        let canceller = Thread {
            for _ in 0..<rounds {
                let ended = DispatchSemaphore(value: 0)
                let reader = Task {
                    await read()
                    ended.signal()
                }
                usleep(UInt32.random(in: 0...40))
                reader.cancel()
                ended.wait()
                flags.done.add(1, ordering: .relaxed)
            }
            flags.stop.store(true, ordering: .relaxed)
        }
        publisher.start()
        canceller.start()
        var last = -1
        var stillSince = ContinuousClock.now
        while true {
            let now = flags.done.load(ordering: .relaxed)
            if now == rounds { return Outcome(rounds: now) }
            if now != last {
                last = now
                stillSince = .now
            } else if ContinuousClock.now - stillSince > stuckAfter {
                return Outcome(rounds: now)
            }
            try? await Task.sleep(for: .milliseconds(20))
        }
    }
}

