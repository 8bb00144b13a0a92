import E2EEDevServer
import E2EEMessaging
import Foundation
import Testing

extension IntegrationTests {
    /// Issue 7's "done means": the whole receive side under a hostile, lossy server. Seed and
    /// size come from ``SoakSettings`` (`E2EE_SOAK_SEED`, `E2EE_SOAK_MESSAGES` for a longer run).
    @Suite("Soak")
    struct SoakTests {
        @Test("""
            five devices of three users send interleaved into a DM and a group through socket drops, duplicated and \
            reordered events, commit-after-publish delays, tied timestamps, pub/sub deaths and a polling phase: every timeline ends \
            identical, in order, and exactly what was sent
            """)
        func soak() async throws {
            let settings = SoakSettings.fromEnvironment()
            let plan = SoakPlan(seed: settings.seed, perDevice: settings.messagesPerDevice)
            let seed = "seed \(settings.seed) (E2EE_SOAK_SEED=\(settings.seed) repeats it)"
            let started = ContinuousClock.now
            try await MessagingHarness.with(.testing(quirks: SoakRun.quirks)) { harness in
                let run = try await SoakRun.start(harness, plan: plan)
                do {
                    var faults = SoakFaultSequence(seed: settings.seed)
                    faults = try await run.socketPhase(0, faults: faults)
                    faults = try await run.pollingPhase(faults: faults)
                    _ = try await run.socketPhase(2, faults: faults)
                    try await run.drainOutboxes()
                    for (device, monitor) in run.monitors.enumerated() {
                        let expected = run.expectedCounts(device: device)
                        let arrived = await monitor.waitForReadable(expected, limit: .seconds(90))
                        #expect(arrived, "\(seed): \(SoakPlan.devices[device]) reads \(monitor.readable.value), expected \(expected)")
                    }
                    let problems = try await SoakVerdict(run: run).problems()
                    #expect(problems.isEmpty, "\(seed): \(problems.joined(separator: "; "))")
                    let kinds = Dictionary(grouping: run.faultLog.value, by: \.kind).mapValues(\.count)
                    print("soak \(seed): \(plan.messages.joined().count) messages, \(run.faultLog.value.count) faults \(kinds), "
                          + "\(ContinuousClock.now - started)")
                } catch {
                    Issue.record("\(seed): \(error)")
                }
                await run.stop()
            }
        }
    }
}
