import Foundation
import Testing

extension ToolTests {
    /// K34 with real processes (docs/spec/protocol.md §11.4): the new device's tool process is
    /// SIGKILLed twice right after committing a chunk (`E2EE_TEST_CRASH_AT=chunkCommitted`), each
    /// time before its acknowledgement leaves; started again it resumes from its store, and the
    /// transfer completes with each record once and the digests checked.
    @Suite("transfer")
    struct TransferCommandTests {
        @Test("K34: the new device killed twice at chunkCommitted: the transfer resumes and completes, each record once; transfer status reports it")
        func killedTwice() async throws {
            try await ToolHarness.with { harness in
                let (phoneStore, laptop) = try await LinkCommandTests.phoneAndLaptop(harness)
                var phoneEnvironment = harness.environment()
                phoneEnvironment["E2EE_TEST_CHUNK_RECORDS"] = "1"
                var crashing = harness.environment()
                crashing["E2EE_TEST_CRASH_AT"] = "chunkCommitted"

                let phone = try LiveToolProcess(["link", "accept", "--store", phoneStore, "--timeout", "150"], environment: phoneEnvironment,
                                                in: harness.directory, typing: true)
                let (newDevice, _, _) = try await LinkCommandTests.typeCodes(phone: phone) {
                    try LiveToolProcess(["link", "start", "--store", laptop.store, "--timeout", "120"], environment: crashing,
                                        in: harness.directory, typing: true)
                }

                let firstEnd = await newDevice.finish(limit: .seconds(60))
                #expect(firstEnd.exit?.bySignal == true, "killed at the first chunk's commit: \(firstEnd.summary)")
                let second = try LiveToolProcess(["listen", "--store", laptop.store, "--timeout", "40"], environment: crashing, in: harness.directory)
                let secondEnd = await second.finish(limit: .seconds(60))
                #expect(secondEnd.exit?.bySignal == true, "killed again at the next chunk's commit: \(secondEnd.summary)")

                let third = try LiveToolProcess(["listen", "--store", laptop.store, "--timeout", "60"], environment: harness.environment(),
                                                in: harness.directory)
                let phoneEnd = await phone.finish(limit: .seconds(90))
                #expect(phoneEnd.exit?.status == 0, "the primary saw the last acknowledgement: \(phoneEnd.summary)")
                third.send(signal: SIGTERM)
                _ = await third.finish(limit: .seconds(20))

                let status = try await harness.tool("transfer", "status", "--store", laptop.store, "--json")
                #expect(status.status == 0, "\(status.summary)")
                let transfers = try status.json()["transfers"] as? [[String: Any]] ?? []
                let received = try #require(transfers.first, "\(status.summary)")
                #expect(received["state"] as? String == "done", "\(status.summary)")
                #expect(received["direction"] as? String == "receiving")
                let done = received["records_done"] as? Int, expected = received["records_expected"] as? Int
                #expect(done != nil && done == expected, "each record held once: \(status.summary)")
                #expect((expected ?? 0) >= 2, "setting up: at least two chunks (one record each), one for each kill: \(status.summary)")

                let sent = try await harness.tool("transfer", "status", "--store", phoneStore)
                #expect(sent.stdout.contains("sending to \(laptop.deviceID)") && sent.stdout.contains("done"), "\(sent.summary)")

                // transfer retry: a new grant to the linked laptop, taken while it listens.
                let listening = try LiveToolProcess(["listen", "--store", laptop.store, "--timeout", "60"], environment: harness.environment(),
                                                    in: harness.directory)
                let retry = try await harness.tool("transfer", "retry", laptop.deviceID, "--store", phoneStore, "--timeout", "60")
                #expect(retry.status == 0 && retry.stdout.contains("done"), "\(retry.summary)")
                listening.send(signal: SIGTERM)
                _ = await listening.finish(limit: .seconds(20))
                let after = try await harness.tool("transfer", "status", "--store", laptop.store, "--json")
                let states = (try after.json()["transfers"] as? [[String: Any]] ?? []).compactMap { $0["state"] as? String }
                #expect(states == ["done", "done"], "\(after.summary)")
            }
        }
    }
}
