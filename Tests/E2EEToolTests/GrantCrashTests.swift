import Foundation
import Testing

extension ToolTests {
    /// docs/spec/protocol.md §10.12: a grant's certificate is logged in the primary file before
    /// it leaves. The primary's real tool process is SIGKILLed right after the log
    /// (`E2EE_TEST_CRASH_AT=grantLogged`): the new device was granted nothing, the primary comes
    /// back issuing (its own log knows the certificate, so nothing looks foreign), and linking
    /// again goes through.
    @Suite("Grant crash")
    struct GrantCrashTests {
        @Test("SIGKILL of the primary between logging a grant and sending it: nothing granted, issuing goes on, the next link succeeds")
        func killedAfterTheGrantWasLogged() async throws {
            try await ToolHarness.with { harness in
                let (phoneStore, laptop) = try await LinkCommandTests.phoneAndLaptop(harness)
                var crashing = harness.environment()
                crashing["E2EE_TEST_CRASH_AT"] = "grantLogged"
                let phone = try LiveToolProcess(["link", "accept", "--store", phoneStore, "--timeout", "120"], environment: crashing,
                                                in: harness.directory, typing: true)
                #expect(await phone.wait { $0.stderr.contains("waiting for a request") })
                let newDevice = try harness.startTyping("link", "start", "--store", laptop.store, "--timeout", "30")
                let laptopCode = try #require(await LinkCommandTests.code(printedBy: newDevice), "\(newDevice.output.value.summary)")
                #expect(await phone.wait { $0.stderr.contains("type the code your other device shows") })
                phone.type(laptopCode)
                let killed = await phone.finish(limit: .seconds(60))
                #expect(killed.exit?.bySignal == true && killed.exit?.status == SIGKILL, "\(killed.summary)")
                _ = await newDevice.finish(limit: .seconds(5))

                let laptopStatus = try await harness.tool("user-key", "status", "--store", laptop.store, "--json")
                #expect(try laptopStatus.json()["role"] as? String != "linked", "\(laptopStatus.summary)")
                let phoneStatus = try await harness.tool("user-key", "status", "--store", phoneStore, "--json")
                #expect(try phoneStatus.json()["role"] as? String == "primary", "\(phoneStatus.summary)")
                let stopped = try phoneStatus.json()["issuing_stopped"]
                #expect(stopped == nil || stopped is NSNull, "\(phoneStatus.summary)")

                // Linking again goes through.
                let again = try harness.startTyping("link", "accept", "--store", phoneStore, "--timeout", "120")
                let (retry, _, _) = try await LinkCommandTests.typeCodes(phone: again) {
                    try harness.startTyping("link", "start", "--store", laptop.store, "--timeout", "120")
                }
                let phoneEnd = await again.finish(limit: .seconds(90))
                let laptopEnd = await retry.finish(limit: .seconds(90))
                #expect(phoneEnd.exit?.status == 0, "\(phoneEnd.summary)")
                #expect(laptopEnd.exit?.status == 0, "\(laptopEnd.summary)")
                let linked = try await harness.tool("user-key", "status", "--store", laptop.store, "--json")
                #expect(try linked.json()["role"] as? String == "linked", "\(linked.summary)")
            }
        }
    }
}
