import Foundation
import Testing

extension ToolTests {
    /// K38 with real processes (docs/spec/protocol.md §11.3): the phone's store is put back from
    /// a copy taken before a trust decision (a group created), while its primary file keeps the
    /// raised counter. `user-key status` says so; `link accept` links the laptop but sends
    /// nothing and exits 14 naming the two commands; `user-key confirm-trust` confirms, and
    /// `transfer retry` then sends the laptop the phone's decisions.
    @Suite("user-key confirm-trust")
    struct TrustConfirmCommandTests {
        @Test("K38: a primary store put back from an older copy holds the transfer at link accept (exit 14) until user-key confirm-trust; transfer retry then completes")
        func heldUntilConfirmed() async throws {
            try await ToolHarness.with { harness in
                let (phoneStore, laptop) = try await LinkCommandTests.phoneAndLaptop(harness)
                let copy = try StoreFiles.copy(phoneStore, to: harness.directory.appendingPathComponent("phone-before").path)
                let decision = try await harness.tool("channels", "create", "book club", "--store", phoneStore)
                #expect(decision.status == 0, "\(decision.summary)")
                try StoreFiles.restore(copy, to: phoneStore)

                let behind = try await harness.tool("user-key", "status", "--store", phoneStore, "--json")
                #expect(try behind.json()["trust_state_unconfirmed"] as? Bool == true, "\(behind.summary)")

                let phone = try harness.startTyping("link", "accept", "--store", phoneStore, "--timeout", "120")
                let (newDevice, _, _) = try await LinkCommandTests.typeCodes(phone: phone) {
                    try harness.startTyping("link", "start", "--store", laptop.store, "--timeout", "20")
                }
                let phoneEnd = await phone.finish(limit: .seconds(90))
                #expect(phoneEnd.exit?.status == 14, "\(phoneEnd.summary)")
                #expect(phoneEnd.stderr.contains("user-key confirm-trust") && phoneEnd.stderr.contains("transfer retry \(laptop.deviceID)"),
                        "\(phoneEnd.summary)")
                let laptopEnd = await newDevice.finish(limit: .seconds(60))
                #expect(laptopEnd.exit?.status == 11, "nothing arrived before the laptop's timeout: \(laptopEnd.summary)")
                let sent = try await harness.tool("transfer", "status", "--store", laptop.store, "--json")
                let nothing = (try sent.json()["transfers"] as? [[String: Any]] ?? []).allSatisfy { ($0["records_done"] as? Int ?? 0) == 0 }
                #expect(nothing, "no record reached the laptop before the confirmation: \(sent.summary)")

                let confirmed = try await harness.tool("user-key", "confirm-trust", "--store", phoneStore, "--json")
                #expect(confirmed.status == 0, "\(confirmed.summary)")
                #expect(try confirmed.json()["confirmed"] as? Bool == true, "\(confirmed.summary)")
                let after = try await harness.tool("user-key", "status", "--store", phoneStore, "--json")
                #expect(try after.json()["trust_state_unconfirmed"] as? Bool == false, "\(after.summary)")

                let listening = try LiveToolProcess(["listen", "--store", laptop.store, "--timeout", "60"], environment: harness.environment(),
                                                    in: harness.directory)
                let retry = try await harness.tool("transfer", "retry", laptop.deviceID, "--store", phoneStore, "--timeout", "60")
                #expect(retry.status == 0 && retry.stdout.contains("done"), "\(retry.summary)")
                listening.send(signal: SIGTERM)
                _ = await listening.finish(limit: .seconds(20))

                let laptopConfirm = try await harness.tool("user-key", "confirm-trust", "--store", laptop.store)
                #expect(laptopConfirm.status == 15, "only the primary confirms: \(laptopConfirm.summary)")
            }
        }
    }
}

/// A store's files (the database and its WAL companions) copied aside and put back, as a
/// backup restore would.
enum StoreFiles {
    static let suffixes = ["", "-wal", "-shm"]

    /// Copies the files of the store at `path` to `destination` (a path prefix); returns it.
    static func copy(_ path: String, to destination: String) throws -> String {
        for suffix in suffixes where FileManager.default.fileExists(atPath: path + suffix) {
            try FileManager.default.copyItem(atPath: path + suffix, toPath: destination + suffix)
        }
        return destination
    }

    /// Replaces the store at `path` with the copy at `copy`.
    static func restore(_ copy: String, to path: String) throws {
        for suffix in suffixes {
            try? FileManager.default.removeItem(atPath: path + suffix)
            if FileManager.default.fileExists(atPath: copy + suffix) { try FileManager.default.copyItem(atPath: copy + suffix, toPath: path + suffix) }
        }
    }
}
