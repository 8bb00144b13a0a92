import E2EECrypto
import E2EEMessaging
import E2EETransport
import Foundation
import Testing

extension ToolTests {
    /// `e2ee-tool user-key take-over` (docs/spec/protocol.md §10.15) with real tool processes:
    /// the phone's login ends, Bob logs in again on the same installation, and the new login
    /// takes over from the phone's store.
    @Suite("user-key take-over")
    struct TakeOverCommandTests {
        @Test("K27: after the phone logs out, a new login takes over from its store: primary at epoch 2, the file beside the new store, the phone deleted; a store that is not the primary exits 15")
        func takeOverAfterLogout() async throws {
            try await ToolHarness.with { harness in
                let (phoneStore, laptop) = try await LinkCommandTests.phoneAndLaptop(harness)
                let phone = try #require(try await harness.tool("user-key", "status", "--store", phoneStore, "--json").json()["device_id"] as? String)
                let logout = try await harness.tool("account", "logout", "--store", phoneStore)
                #expect(logout.status == 0, "\(logout.summary)")
                let newLogin = try await UserKeyCommandTests.login(harness, "bob", store: "bob-new")

                // The unlinked laptop's store holds no primary file: not_primary.
                let refused = try await harness.tool("user-key", "take-over", "--from-store", laptop.store, "--store", newLogin.store)
                #expect(refused.status == 15, "\(refused.summary)")

                let run = try await harness.tool("user-key", "take-over", "--from-store", phoneStore, "--store", newLogin.store, "--json")
                #expect(run.status == 0, "\(run.summary)")
                let json = try run.json()
                #expect(json["outcome"] as? String == "took_over" && json["removed"] as? String == phone && json["epoch"] as? Int == 2, "\(run.summary)")
                let status = try #require(json["status"] as? [String: Any])
                #expect(status["role"] as? String == "primary" && status["primary"] as? String == newLogin.deviceID, "\(run.summary)")
                #expect(!FileManager.default.fileExists(atPath: phoneStore + ".primary/primary-file"), "the old file is still there")
                #expect(FileManager.default.fileExists(atPath: newLogin.store + ".primary/primary-file"))

                let observer = try await harness.observer()
                let listed = try await observer.bundles(userID: UserID(newLogin.userID)).map(\.deviceID.rawValue)
                #expect(!listed.contains(phone), "the old phone is still listed: \(listed)")
                #expect(try await DeviceRemovalCommandTests.listedEpoch(newLogin.deviceID, of: newLogin.userID, observer: observer) == 2)
            }
        }

        @Test("K28: after a reset on another login, the take-over stops with nothing changed and exits 17, naming the other key and no kept device")
        func stopsForAnotherKey() async throws {
            try await ToolHarness.with { harness in
                let (phoneStore, laptop) = try await LinkCommandTests.phoneAndLaptop(harness)
                let phone = try #require(try await harness.tool("user-key", "status", "--store", phoneStore, "--json").json()["device_id"] as? String)
                let reset = try await harness.tool("user-key", "reset", "--remove", phone, "--store", laptop.store, "--json")
                #expect(reset.status == 0, "\(reset.summary)")
                let newKey = try #require(try reset.json()["key"] as? String)
                let newLogin = try await UserKeyCommandTests.login(harness, "bob", store: "bob-new")

                let run = try await harness.tool("user-key", "take-over", "--from-store", phoneStore, "--store", newLogin.store, "--json")
                #expect(run.status == 17, "\(run.summary)")
                let json = try run.json()
                #expect(json["outcome"] as? String == "another_key_listed" && json["other_keys"] as? [String] == [newKey], "\(run.summary)")
                #expect(json["carriers"] as? [String] == [], "the laptop was never kept by the phone: \(run.summary)")
                #expect((json["status"] as? [String: Any])?["role"] as? String == "unlinked", "\(run.summary)")
                #expect(FileManager.default.fileExists(atPath: phoneStore + ".primary/primary-file"), "the stop touched the old file")
                #expect(!FileManager.default.fileExists(atPath: newLogin.store + ".primary/primary-file"), "the stop wrote a file")
            }
        }

        @Test("a take-over killed right after its save (E2EE_TEST_CRASH_AT=primaryFileSaved) published nothing; running it again finishes it")
        func killedTakeOverFinishes() async throws {
            try await ToolHarness.with { harness in
                let (phoneStore, _) = try await LinkCommandTests.phoneAndLaptop(harness)
                let phone = try #require(try await harness.tool("user-key", "status", "--store", phoneStore, "--json").json()["device_id"] as? String)
                #expect(try await harness.tool("account", "logout", "--store", phoneStore).status == 0)
                let newLogin = try await UserKeyCommandTests.login(harness, "bob", store: "bob-new")
                let observer = try await harness.observer()

                var environment = harness.environment()
                environment["E2EE_TEST_CRASH_AT"] = "primaryFileSaved"
                let killed = try LiveToolProcess(["user-key", "take-over", "--from-store", phoneStore, "--store", newLogin.store],
                                                 environment: environment, in: harness.directory)
                #expect(await killed.wait(limit: .seconds(45)) { $0.exit != nil }, "the take-over was not killed at its crash point")
                let end = await killed.finish(limit: .seconds(5))
                #expect(end.exit?.bySignal == true && end.exit?.status == 9, "\(end.summary)")
                #expect(FileManager.default.fileExists(atPath: newLogin.store + ".primary/primary-file"), "killed before the save")
                #expect(try await DeviceRemovalCommandTests.listedEpoch(newLogin.deviceID, of: newLogin.userID, observer: observer) == 0,
                        "a certificate left before the kill")
                #expect(try await DeviceRemovalCommandTests.listedEpoch(phone, of: newLogin.userID, observer: observer) == 1, "the phone was deleted")

                let again = try await harness.tool("user-key", "take-over", "--from-store", phoneStore, "--store", newLogin.store, "--json")
                #expect(again.status == 0, "\(again.summary)")
                #expect(try again.json()["outcome"] as? String == "took_over" && again.json()["epoch"] as? Int == 2, "\(again.summary)")
                #expect(!FileManager.default.fileExists(atPath: phoneStore + ".primary/primary-file"), "the old file is still there")
                #expect(try await DeviceRemovalCommandTests.listedEpoch(newLogin.deviceID, of: newLogin.userID, observer: observer) == 2)
                #expect(try await DeviceRemovalCommandTests.listedEpoch(phone, of: newLogin.userID, observer: observer) == nil, "the phone is still listed")
            }
        }
    }
}
