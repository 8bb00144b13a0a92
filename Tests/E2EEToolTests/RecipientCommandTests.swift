import E2EEMessaging
import Foundation
import Testing

extension ToolTests {
    /// `send`'s recipient report, `devices pending|approve|decline`, `channels policy` and exit
    /// code 12 (docs/spec/protocol.md §5), as processes over real stores against the dev server.
    @Suite("recipients")
    struct RecipientCommandTests {
        /// Logs `username` in through the tool into a new store, with keys.
        private func login(_ harness: ToolHarness, _ username: String, store name: String) async throws -> String {
            let store = harness.storePath(name)
            let run = try await harness.tool("account", "login", "--server", harness.server.baseURL, "--username", username,
                                             "--store", store, "--kdf", "interactive", "--json")
            #expect(run.status == 0, "\(run.summary)")
            let keys = try await harness.tool("keys", "bootstrap", "--store", store)
            #expect(keys.status == 0, "\(keys.summary)")
            return try #require(try run.json()["device_id"] as? String)
        }

        @Test("devices confirm lists our own devices from the login's listing, and confirms the ones named")
        func confirmOwnDevicesAfterLogin() async throws {
            try await ToolHarness.with { harness in
                let (alice, _, _) = try await harness.pair()
                let laptop = harness.storePath("alice-laptop")
                _ = try await login(harness, "alice", store: "alice-laptop")
                let listed = try await harness.tool("devices", "confirm", "--store", laptop, "--json")
                #expect(listed.status == 0, "\(listed.summary)")
                #expect(try listed.json()["unconfirmed"] as? [String] == [alice.deviceID], "\(listed.summary)")
                let confirmed = try await harness.tool("devices", "confirm", alice.deviceID, "--store", laptop)
                #expect(confirmed.status == 0, "\(confirmed.summary)")
                #expect(confirmed.stdout.contains("confirmed \(alice.deviceID)") && !confirmed.stdout.contains("unconfirmed"), "\(confirmed.summary)")
            }
        }

        @Test("send reports a held new device (text and --json); devices pending lists it; decline, approve, unknown device exits 6")
        func heldDeviceLifecycle() async throws {
            try await ToolHarness.with { harness in
                let (alice, bob, dm) = try await harness.pair()
                let first = try await harness.tool("send", dm, "one", "--store", alice.store)
                #expect(first.status == 0, "\(first.summary)")
                let bob2 = try await login(harness, "bob", store: "bob2")

                let text = try await harness.tool("send", dm, "two", "--store", alice.store)
                #expect(text.status == 0, "\(text.summary)")
                #expect(text.stdout.contains("held: device \(bob2) of user \(bob.userID)"), "\(text.summary)")
                let json = try await harness.tool("send", dm, "three", "--store", alice.store, "--json")
                #expect(json.status == 0, "\(json.summary)")
                let recipients = try #require(try json.json()["recipients"] as? [String: Any])
                let held = try #require(recipients["held"] as? [[String: Any]])
                #expect(held.compactMap { $0["device_id"] as? String } == [bob2])
                #expect(recipients["recipient_count"] as? Int == 1)

                let pending = try await harness.tool("devices", "pending", "--store", alice.store, "--json")
                #expect(pending.status == 0, "\(pending.summary)")
                let listed = try #require(try pending.json()["pending"] as? [[String: Any]])
                #expect(listed.compactMap { $0["device_id"] as? String } == [bob2])
                #expect(listed.first?["channel_id"] as? String == dm)

                let decline = try await harness.tool("devices", "decline", bob2, "--store", alice.store)
                #expect(decline.status == 0, "\(decline.summary)")
                let none = try await harness.tool("devices", "pending", "--store", alice.store)
                #expect(none.stdout.contains("no held device"), "\(none.summary)")
                let approve = try await harness.tool("devices", "approve", bob2, "--store", alice.store, "--json")
                #expect(approve.status == 0, "\(approve.summary)")
                #expect(try approve.json()["channels"] as? [String] == [dm])
                let unknown = try await harness.tool("devices", "approve", UUID().uuidString.lowercased(), "--store", alice.store)
                #expect(unknown.status == 6, "\(unknown.summary)")

                let after = try await harness.tool("send", dm, "four", "--store", alice.store, "--json")
                #expect(after.status == 0, "\(after.summary)")
                #expect((try after.json()["recipients"] as? [String: Any])?["recipient_count"] as? Int == 2)
                // `devices <user-id>` still lists a user's devices.
                let devices = try await harness.tool("devices", bob.userID, "--store", alice.store)
                #expect(devices.status == 0, "\(devices.summary)")
            }
        }

        @Test("a send whose every recipient device is held says so and exits 12; channels policy surface lets the next one through")
        func everyRecipientHeldExits12() async throws {
            try await ToolHarness.with { harness in
                let (alice, bob, dm) = try await harness.pair()
                let first = try await harness.tool("send", dm, "one", "--store", alice.store)
                #expect(first.status == 0, "\(first.summary)")
                let bob2 = try await login(harness, "bob", store: "bob2")
                // Bob's first device goes away: only the new, held one is listed.
                try await harness.client(loggingInAs: "bob").deleteDevice(id: DeviceID(bob.deviceID))

                let held = try await harness.tool("send", dm, "two", "--store", alice.store)
                #expect(held.status == 12, "\(held.summary)")
                #expect(held.stdout.contains("held: device \(bob2)"), "\(held.summary)")
                #expect(held.stdout.contains("removed: device \(bob.deviceID)"), "\(held.summary)")
                #expect(held.stderr.contains("every recipient device is held"), "\(held.summary)")
                let codes = try await harness.tool("exit-codes")
                #expect(codes.stdout.contains("12  recipients_held"), "\(codes.summary)")

                let bad = try await harness.tool("channels", "policy", dm, "maybe", "--store", alice.store)
                #expect(bad.status == 2, "\(bad.summary)")
                let policy = try await harness.tool("channels", "policy", dm, "surface", "--store", alice.store, "--json")
                #expect(policy.status == 0, "\(policy.summary)")
                #expect(try policy.json()["policy"] as? String == "surface")
                // The held device stays held (policy applies to devices not seen before); approving sends.
                let approve = try await harness.tool("devices", "approve", bob2, "--store", alice.store)
                #expect(approve.status == 0, "\(approve.summary)")
                let sent = try await harness.tool("send", dm, "three", "--store", alice.store, "--json")
                #expect(sent.status == 0, "\(sent.summary)")
                #expect(try sent.json()["state"] as? String == "sent")
            }
        }
    }
}
