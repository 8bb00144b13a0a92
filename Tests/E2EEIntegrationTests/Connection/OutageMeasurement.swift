import E2EEDevServer
import E2EEMessaging
import E2EETestSupport
import E2EETransport
import Foundation
import Testing

extension IntegrationTests {
    /// The figures of issue 43 items 1 and 2, measured through the public API (not asserted:
    /// run by `Benchmarks/outage.sh`, which sets `E2EE_MEASURE_OUTAGE=1`; skipped otherwise).
    /// Prints one Markdown table: how long `send` takes to return while the server refuses
    /// connections or accepts them and never answers, and how long after a same-port restart
    /// the socket of an account connected with `connect(to:)` is back.
    @Suite("Outage measured", .enabled(if: ProcessInfo.processInfo.environment["E2EE_MEASURE_OUTAGE"] == "1"))
    struct OutageMeasurement {
        private static func milliseconds(_ duration: Duration) -> Double {
            Double(duration.components.seconds) * 1000 + Double(duration.components.attoseconds) / 1e15
        }

        private static func summary(_ samples: [Duration]) -> String {
            let sorted = samples.map(milliseconds).sorted()
            guard let maximum = sorted.last else { return "no samples" }
            return String(format: "median %.1f ms, max %.1f ms (%d runs)", sorted[sorted.count / 2], maximum, sorted.count)
        }

        @Test("send while away, reconnect after a same-port restart")
        func measure() async throws {
            let sends = Int(ProcessInfo.processInfo.environment["E2EE_OUTAGE_SENDS"] ?? "") ?? 5
            let outages = (ProcessInfo.processInfo.environment["E2EE_OUTAGE_SECONDS"] ?? "5,15,45").split(separator: ",").compactMap { Int($0) }
            var restartable = try RestartableDevServer()
            defer { restartable.remove() }
            var server = try await restartable.start()
            let harness = MessagingHarness(server: server)
            let alice = try await harness.register("alice")
            let bob = try await harness.register("bob")
            let dm = try await harness.acceptedDM(alice, bob)
            let monitor = AccountMonitor(alice, channelIDs: [dm.id])
            await alice.connect(to: try ChatServer(url: server.baseURL))
            #expect(await monitor.waitForConnection(.connected))
            var rows: [(String, String)] = []
            let clock = ContinuousClock()

            for outage in outages {
                await server.shutdown()
                let downAt = clock.now
                var refused: [Duration] = []
                var silentSends: [Duration] = []
                try await Task.sleep(for: .seconds(Double(outage) / 2))
                for index in 0..<sends {
                    refused.append(try await clock.measure { _ = try await alice.send(text: "refused \(outage) \(index)", to: dm.id) })
                }
                let silent = try await SilentServer.start(host: server.host, port: server.port)
                for index in 0..<sends {
                    silentSends.append(try await clock.measure { _ = try await alice.send(text: "silent \(outage) \(index)", to: dm.id) })
                }
                try await Task.sleep(until: downAt + .seconds(outage))
                await silent.stop()
                server = try await restartable.start()
                let upAt = clock.now
                #expect(await monitor.waitForConnection(.connected, limit: .seconds(120)))
                let reconnect = clock.now - upAt
                rows.append(("send, server refusing connections (outage \(outage) s)", Self.summary(refused)))
                rows.append(("send, server accepting and never answering (outage \(outage) s)", Self.summary(silentSends)))
                rows.append(("socket back after a same-port restart (outage \(outage) s)", String(format: "%.0f ms", Self.milliseconds(reconnect))))
                #expect(await eventually(within: .seconds(60)) { (try? await alice.outboxEntries())?.isEmpty == true })
            }
            print("| measurement (public API, in-process dev server, connect(to:)) | figure |")
            print("|---|---|")
            for (name, figure) in rows { print("| \(name) | \(figure) |") }
            monitor.stop()
            await alice.shutdown()
            await bob.shutdown()
            await server.shutdown()
        }
    }
}
