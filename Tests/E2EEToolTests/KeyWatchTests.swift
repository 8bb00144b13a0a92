import E2EEMessaging
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension ToolTests {
    /// `keys replenish --watch` as a process: the account's own reaction to `keys.low_otp`,
    /// printed.
    @Suite("keys watch")
    struct KeyWatchTests {
        @Test("--watch tops up at once, then replenishes when another client's fetches drain the server to keys.low_otp")
        func watchReactsToLowOneTimePrekeys() async throws {
            try await ToolHarness.with { harness in
                let alice = try await harness.register("alice", bootstrap: true)
                let watcher = try harness.start("keys", "replenish", "--watch", "--store", alice.store, "--json", "--verbose", "--timeout", "120")
                #expect(await watcher.waitForConnection(), "\(watcher.output.value.summary)")
                // The tool's own count is a bundle fetch, which pops one: 49 left, 1 uploaded.
                let start = try #require(watcher.output.value.objects.first, "\(watcher.output.value.summary)")
                #expect(start["event"] as? String == "replenish")
                #expect(start["server_before"] as? Int == 49 && start["uploaded"] as? Int == 1, "\(start)")

                // Another user fetches alice's bundle until fewer than 10 are left: the server
                // then pushes keys.low_otp (remaining 9) to alice's socket.
                let other = try await harness.observer()
                var remaining = 50
                for _ in 0..<60 where remaining >= 10 {
                    remaining = try await other.bundle(deviceID: DeviceID(alice.deviceID)).oneTimePreKeyCount
                }
                #expect(remaining == 9)
                let reported = await watcher.wait { $0.objects.contains { $0["event"] as? String == "key_maintenance" } }
                #expect(reported, "\(watcher.output.value.summary)")
                let report = try #require(watcher.output.value.objects.first { $0["event"] as? String == "key_maintenance" })
                #expect(report["server_before"] as? Int == 9, "\(report)")
                #expect(report["uploaded"] as? Int == 41, "\(report)")
                #expect(report["server_after"] as? Int == 50, "\(report)")
                #expect(try await other.bundle(deviceID: DeviceID(alice.deviceID)).oneTimePreKeyCount == 49, "50 on offer again; this fetch pops one")

                watcher.send(signal: SIGINT)
                let output = await watcher.finish()
                #expect(output.exit?.status == 0 && output.exit?.bySignal == false, "\(output.summary)")
                #expect(output.objects.filter { $0["event"] as? String == "key_maintenance" }.count == 1, "one keys.low_otp, one run: \(output.summary)")
            }
        }
    }
}
