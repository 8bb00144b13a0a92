import E2EECrypto
import E2EEMessaging
import E2EETransport
import Foundation
import Testing

extension ToolTests {
    /// `e2ee-tool devices remove` (docs/spec/protocol.md §10.14) with real tool processes:
    /// K24 of the linking proposal, a removal killed (SIGKILL) right after the primary file's
    /// save and carried out at the next start.
    @Suite("devices remove")
    struct DeviceRemovalCommandTests {
        @Test("K24: devices remove killed at primaryFileSaved publishes nothing; the next command completes it (new epoch, laptop deleted); a linked device exits 15")
        func killedRemovalCompletes() async throws {
            try await ToolHarness.with { harness in
                let (phoneStore, laptop) = try await LinkCommandTests.phoneAndLaptop(harness)
                try await Self.link(phoneStore: phoneStore, laptop: laptop, harness: harness)
                let before = try await harness.tool("user-key", "status", "--store", phoneStore, "--json")
                let phone = try #require(try before.json()["device_id"] as? String, "\(before.summary)")
                #expect(try before.json()["epoch"] as? Int == 1)

                // Only the primary removes.
                let refused = try await harness.tool("devices", "remove", phone, "--store", laptop.store)
                #expect(refused.status == 15, "\(refused.summary)")

                let observer = try await harness.observer()
                var environment = harness.environment()
                environment["E2EE_TEST_CRASH_AT"] = "primaryFileSaved"
                let killed = try LiveToolProcess(["devices", "remove", laptop.deviceID, "--store", phoneStore], environment: environment,
                                                 in: harness.directory)
                // It ends on its own (the hook's SIGKILL), well before finish(limit:) would kill it.
                #expect(await killed.wait(limit: .seconds(45)) { $0.exit != nil }, "the removal was not killed at its crash point")
                let end = await killed.finish(limit: .seconds(5))
                #expect(end.exit?.bySignal == true && end.exit?.status == 9, "\(end.summary)")
                #expect(!end.stdout.contains("removed"), "\(end.summary)")
                // Killed after the save: nothing left the phone.
                #expect(try await Self.listedEpoch(phone, of: laptop.userID, observer: observer) == 1)
                #expect(try await Self.listedEpoch(laptop.deviceID, of: laptop.userID, observer: observer) != nil, "the laptop was deleted")

                // The next command on the phone (opening runs the renewal) carries the removal out.
                let after = try await harness.tool("user-key", "status", "--store", phoneStore, "--json")
                #expect(after.status == 0, "\(after.summary)")
                #expect(try after.json()["epoch"] as? Int == 2, "\(after.summary)")
                #expect(try await Self.listedEpoch(phone, of: laptop.userID, observer: observer) == 2, "the phone's record at the new epoch")
                let listed = try await observer.bundles(userID: UserID(laptop.userID)).map(\.deviceID.rawValue)
                #expect(!listed.contains(laptop.deviceID), "the removed laptop is still listed: \(listed)")
            }
        }

        /// The epoch of the certificate `device`'s listed record carries (0: none), or nil when not listed.
        static func listedEpoch(_ device: String, of user: String, observer: HTTPChatServer) async throws -> UInt32? {
            guard let json = try await observer.bundles(userID: UserID(user)).first(where: { $0.deviceID.rawValue == device }) else { return nil }
            let bundle = try PrekeyBundle(deviceID: json.deviceID.rawValue, identityKey: json.identityKey, signedPreKey: json.signedPreKey,
                                          signedPreKeySignature: json.signedPreKeySignature, oneTimePreKey: json.oneTimePreKey)
            return bundle.verifiedCertificate(forUser: try WireUUID(text: user))?.epoch ?? 0
        }

        /// Links the laptop to the phone as the walk-through does: each process's code typed into the other.
        static func link(phoneStore: String, laptop: ToolUser, harness: ToolHarness) async throws {
            let phone = try harness.startTyping("link", "accept", "--store", phoneStore, "--timeout", "120")
            let (newDevice, _, _) = try await LinkCommandTests.typeCodes(phone: phone) {
                try harness.startTyping("link", "start", "--store", laptop.store, "--timeout", "120")
            }
            let laptopEnd = await newDevice.finish(limit: .seconds(90))
            let phoneEnd = await phone.finish(limit: .seconds(90))
            #expect(laptopEnd.exit?.status == 0 && phoneEnd.exit?.status == 0, "\(laptopEnd.summary)\n\(phoneEnd.summary)")
        }
    }
}
