import E2EECrypto
import E2EEMessaging
import Foundation
import Testing

extension ToolTests {
    /// The contact side of user keys (docs/spec/protocol.md §10) through the tool: `user-key
    /// show|accept|pin|verify|forget`, `devices` with certificates, `safety-number --key|--no-key`,
    /// `send`'s exit 16 and `clock confirm`, as processes against the dev server. Contacts' devices
    /// carry certificates minted here and published with the debug hook `debug publish-cert`.
    @Suite("user keys")
    struct UserKeyCommandTests {
        private static let day: UInt32 = 86_400

        /// `not_after` `days` from now.
        private static func notAfter(days: UInt32) -> UInt32 { UInt32(Date().timeIntervalSince1970) + days * day }

        /// Certifies `user`'s device under `key` and has the device publish it (through the tool).
        private static func certify(_ user: ToolUser, under key: Ed25519.PrivateKey, epoch: UInt32 = 1, notAfter: UInt32,
                                    harness: ToolHarness) async throws {
            let bundle = try await harness.observer().bundle(deviceID: DeviceID(user.deviceID))
            let identity = try IdentityBlob(bytes: Base64.decode(bundle.identityKey, maxEncodedLength: 200))
            let certificate = try DeviceCertificate.issue(by: key, userID: WireUUID(text: user.userID), deviceID: WireUUID(text: user.deviceID),
                                                          identity: identity, epoch: epoch, notAfter: notAfter)
            let hex = certificate.bytes.map { String(format: "%02x", $0) }.joined()
            let run = try await harness.tool("debug", "publish-cert", hex, "--store", user.store)
            guard run.status == 0 else { throw HarnessError.toolFailed(run.summary) }
        }

        /// Logs `username` in through the tool into a new store, with keys.
        static func login(_ harness: ToolHarness, _ username: String, store name: String) async throws -> ToolUser {
            let store = harness.storePath(name)
            let run = try await harness.tool("account", "login", "--server", harness.server.baseURL, "--username", username,
                                             "--store", store, "--kdf", "interactive", "--json")
            guard run.status == 0 else { throw HarnessError.toolFailed(run.summary) }
            let keys = try await harness.tool("keys", "bootstrap", "--store", store)
            guard keys.status == 0 else { throw HarnessError.toolFailed(keys.summary) }
            let json = try run.json()
            return ToolUser(username: username, userID: try #require(json["user_id"] as? String),
                            deviceID: try #require(json["device_id"] as? String), store: store)
        }

        private static func fingerprint(_ key: Ed25519.PrivateKey) -> String {
            key.publicKey.rawRepresentation.map { String(format: "%02x", $0) }.joined()
        }

        private static func iso(_ seconds: UInt32) -> String { Date(timeIntervalSince1970: TimeInterval(seconds)).formatted(.iso8601) }

        /// `e2ee-tool arguments…` with the system clock moved by `offset` seconds for the user-key rules.
        private static func tool(_ harness: ToolHarness, offset: Int, _ arguments: String...) async throws -> ToolRun {
            try await ToolProcess.run(arguments, environment: harness.environment().merging(["E2EE_TEST_CLOCK_OFFSET": String(offset)]) { $1 },
                                      in: harness.directory)
        }

        @Test("show: a user without a key is none; a certified user is pinned at first contact; devices shows key, epoch, expiry, linked")
        func showNoneAndPinned() async throws {
            try await ToolHarness.with { harness in
                let alice = try await harness.register("alice", bootstrap: true)
                let bob = try await harness.register("bob", bootstrap: true)
                let carol = try await harness.register("carol", bootstrap: true)
                let key = Ed25519.PrivateKey()
                let end = Self.notAfter(days: 30)
                try await Self.certify(bob, under: key, epoch: 3, notAfter: end, harness: harness)

                let none = try await harness.tool("user-key", "show", carol.userID, "--store", alice.store, "--json")
                #expect(none.status == 0, "\(none.summary)")
                let noneJSON = try none.json()
                #expect(noneJSON["state"] as? String == "none" && noneJSON["key"] == nil, "\(none.summary)")
                #expect(noneJSON["linked_devices"] as? [String] == [], "\(none.summary)")
                let noneText = try await harness.tool("user-key", "show", carol.userID, "--store", alice.store)
                #expect(noneText.stdout.contains("user \(carol.userID): no user key"), "\(noneText.summary)")

                let pinned = try await harness.tool("user-key", "show", bob.userID, "--store", alice.store, "--json")
                #expect(pinned.status == 0, "\(pinned.summary)")
                let json = try pinned.json()
                #expect(json["state"] as? String == "pinned", "\(pinned.summary)")
                #expect(json["key"] as? String == Self.fingerprint(key))
                #expect(json["verified"] as? Bool == false)
                #expect(json["seen_until"] as? String == Self.iso(end))
                #expect(json["last_seen"] is String)
                #expect(json["other_keys"] as? [String] == [] && json["change"] == nil)
                #expect(json["linked_devices"] as? [String] == [bob.deviceID])
                let text = try await harness.tool("user-key", "show", bob.userID, "--store", alice.store)
                #expect(text.stdout.contains("user key \(Self.fingerprint(key)) (not verified)"), "\(text.summary)")
                #expect(text.stdout.contains("linked devices: \(bob.deviceID)"), "\(text.summary)")

                let devices = try await harness.tool("devices", bob.userID, "--store", alice.store, "--json")
                #expect(devices.status == 0, "\(devices.summary)")
                #expect(try devices.json()["user_key_state"] as? String == "pinned")
                let device = try #require((try devices.json()["devices"] as? [[String: Any]])?.first)
                #expect(device["key"] as? String == Self.fingerprint(key), "\(devices.summary)")
                #expect(device["epoch"] as? Int == 3 && device["not_after"] as? String == Self.iso(end))
                #expect(device["linked"] as? Bool == true && device["certificate"] as? String == "valid")
                let devicesText = try await harness.tool("devices", bob.userID, "--store", alice.store)
                #expect(devicesText.stdout.contains("key \(Self.fingerprint(key))  epoch 3  expires \(Self.iso(end))  linked yes"), "\(devicesText.summary)")
                let carolDevices = try await harness.tool("devices", carol.userID, "--store", alice.store, "--json")
                let carolDevice = try #require((try carolDevices.json()["devices"] as? [[String: Any]])?.first)
                #expect(carolDevice["key"] == nil && carolDevice["linked"] as? Bool == false && carolDevice["certificate"] as? String == "none")

                // Safety numbers: under the pinned key by default, another number over the devices.
                let current = try await harness.tool("safety-number", bob.userID, "--store", alice.store, "--json").json()
                let underKey = try await harness.tool("safety-number", bob.userID, "--key", Self.fingerprint(key), "--store", alice.store, "--json").json()
                let overDevices = try await harness.tool("safety-number", bob.userID, "--no-key", "--store", alice.store, "--json").json()
                #expect(current["user_key"] as? String == Self.fingerprint(key))
                #expect(current["safety_number"] as? String == underKey["safety_number"] as? String)
                #expect(overDevices["user_key"] == nil)
                #expect((overDevices["safety_number"] as? String).map { $0.filter(\.isNumber).count == 60 } == true)
                #expect(overDevices["safety_number"] as? String != underKey["safety_number"] as? String)

                // verify marks the pinned key; the error paths exit 6 (nothing to act on) or 2 (malformed).
                let verify = try await harness.tool("user-key", "verify", bob.userID, "--store", alice.store, "--json")
                #expect(verify.status == 0, "\(verify.summary)")
                #expect((try verify.json()["user_key"] as? [String: Any])?["verified"] as? Bool == true, "\(verify.summary)")
                let verifyNone = try await harness.tool("user-key", "verify", carol.userID, "--store", alice.store)
                #expect(verifyNone.status == 6, "no pinned key: \(verifyNone.summary)")
                let accept = try await harness.tool("user-key", "accept", bob.userID, "--store", alice.store)
                #expect(accept.status == 6, "no change waiting: \(accept.summary)")
                let other = Self.fingerprint(Ed25519.PrivateKey())
                let pinUnlisted = try await harness.tool("user-key", "pin", bob.userID, other, "--store", alice.store)
                #expect(pinUnlisted.status == 6, "never listed: \(pinUnlisted.summary)")
                let pinMalformed = try await harness.tool("user-key", "pin", bob.userID, "not-a-key", "--store", alice.store)
                #expect(pinMalformed.status == 2, "\(pinMalformed.summary)")
                let numberUnlisted = try await harness.tool("safety-number", bob.userID, "--key", other, "--store", alice.store)
                #expect(numberUnlisted.status == 6, "\(numberUnlisted.summary)")
                let both = try await harness.tool("safety-number", bob.userID, "--key", other, "--no-key", "--store", alice.store)
                #expect(both.status == 2, "\(both.summary)")
                let forgetStranger = try await harness.tool("user-key", "forget", UUID().uuidString.lowercased(), "--store", alice.store)
                #expect(forgetStranger.status == 6, "\(forgetStranger.summary)")
                let show = try await harness.tool("user-key", "show", bob.userID, "--store", alice.store, "--json").json()
                #expect(show["state"] as? String == "pinned" && show["key"] as? String == Self.fingerprint(key), "the refusals changed nothing")
            }
        }

        @Test("a user whose devices show two keys at first contact: a DM exits 16, a group reports them; pin resolves, forget returns to none")
        func conflictedUser() async throws {
            try await ToolHarness.with { harness in
                let alice = try await harness.register("alice", bootstrap: true)
                let bob = try await harness.register("bob", bootstrap: true)
                let carol = try await harness.register("carol", bootstrap: true)
                let laptop = try await Self.login(harness, "bob", store: "bob-laptop")
                let (first, second) = (Ed25519.PrivateKey(), Ed25519.PrivateKey())
                try await Self.certify(bob, under: first, notAfter: Self.notAfter(days: 30), harness: harness)
                try await Self.certify(laptop, under: second, notAfter: Self.notAfter(days: 30), harness: harness)

                let dm = try await harness.tool("channels", "dm", bob.userID, "--store", alice.store, "--json")
                let dmID = try #require(try dm.json()["id"] as? String, "\(dm.summary)")
                let sent = try await harness.tool("send", dmID, "hello", "--store", alice.store, "--json")
                #expect(sent.status == 16, "\(sent.summary)")
                let json = try sent.json()
                #expect(json["state"] as? String == "failed", "\(sent.summary)")
                let unresolved = (json["recipients"] as? [String: Any])?["unresolved_users"] as? [[String: Any]]
                #expect(unresolved?.count == 1 && unresolved?.first?["user_id"] as? String == bob.userID, "\(sent.summary)")
                #expect(unresolved?.first?["reason"] as? String == "conflicted")
                let text = try await harness.tool("send", dmID, "again", "--store", alice.store)
                #expect(text.status == 16, "\(text.summary)")
                #expect(text.stdout.contains("unresolved: user \(bob.userID) got nothing"), "\(text.summary)")
                #expect(text.stderr.contains("user key is unresolved"), "\(text.summary)")
                let codes = try await harness.tool("exit-codes")
                #expect(codes.stdout.contains("16  user_key_unresolved"), "\(codes.summary)")

                let show = try await harness.tool("user-key", "show", bob.userID, "--store", alice.store, "--json").json()
                #expect(show["state"] as? String == "conflicted" && show["key"] == nil)
                #expect(Set(show["other_keys"] as? [String] ?? []) == [Self.fingerprint(first), Self.fingerprint(second)])
                let verify = try await harness.tool("user-key", "verify", bob.userID, "--store", alice.store)
                #expect(verify.status == 6, "nothing pinned to verify: \(verify.summary)")

                // In a group the others get the message; Bob is reported and the send succeeds.
                let group = try await harness.tool("channels", "create", "team", "--member", bob.userID, "--member", carol.userID,
                                                   "--store", alice.store, "--json")
                let groupID = try #require(try group.json()["id"] as? String, "\(group.summary)")
                let groupSend = try await harness.tool("send", groupID, "hi all", "--store", alice.store, "--json")
                #expect(groupSend.status == 0, "\(groupSend.summary)")
                let recipients = try #require(try groupSend.json()["recipients"] as? [String: Any])
                #expect((recipients["unresolved_users"] as? [[String: Any]])?.compactMap { $0["user_id"] as? String } == [bob.userID])
                #expect(recipients["recipient_count"] as? Int == 1, "carol's device only: \(groupSend.summary)")

                // Compared under each key, the numbers differ; pinning one resolves Bob.
                let underFirst = try await harness.tool("safety-number", bob.userID, "--key", Self.fingerprint(first), "--store", alice.store, "--json")
                let underSecond = try await harness.tool("safety-number", bob.userID, "--key", Self.fingerprint(second), "--store", alice.store, "--json")
                #expect(underFirst.status == 0 && underSecond.status == 0, "\(underFirst.summary)\n\(underSecond.summary)")
                #expect(try underFirst.json()["safety_number"] as? String != underSecond.json()["safety_number"] as? String)
                let pin = try await harness.tool("user-key", "pin", bob.userID, Self.fingerprint(first), "--store", alice.store, "--json")
                #expect(pin.status == 0, "\(pin.summary)")
                let pinned = try #require(try pin.json()["user_key"] as? [String: Any])
                #expect(pinned["state"] as? String == "pinned" && pinned["key"] as? String == Self.fingerprint(first), "\(pin.summary)")
                #expect(pinned["linked_devices"] as? [String] == [bob.deviceID], "\(pin.summary)")
                let after = try await harness.tool("send", dmID, "now pinned", "--store", alice.store, "--json")
                #expect(after.status == 0, "\(after.summary)")
                #expect((try after.json()["recipients"] as? [String: Any])?["recipient_count"] as? Int == 1, "the laptop under the other key gets nothing")
                let devices = try await harness.tool("devices", bob.userID, "--store", alice.store, "--json")
                let listed = try #require(try devices.json()["devices"] as? [[String: Any]])
                let linked = Dictionary(uniqueKeysWithValues: listed.compactMap { entry in (entry["device_id"] as? String).map { ($0, entry["linked"] as? Bool) } })
                #expect(linked == [bob.deviceID: true, laptop.deviceID: false], "\(devices.summary)")

                let forget = try await harness.tool("user-key", "forget", bob.userID, "--store", alice.store, "--json")
                #expect(forget.status == 0, "\(forget.summary)")
                #expect((try forget.json()["user_key"] as? [String: Any])?["state"] as? String == "none", "\(forget.summary)")
            }
        }

        /// Whether `alice` reads `bob`'s first device as linked, with the clock moved by `offset` seconds.
        private static func linked(_ harness: ToolHarness, _ alice: ToolUser, _ bob: ToolUser, offset: Int) async throws -> Bool? {
            let run = try await tool(harness, offset: offset, "devices", bob.userID, "--store", alice.store, "--json")
            return (try run.json()["devices"] as? [[String: Any]])?.first { $0["device_id"] as? String == bob.deviceID }?["linked"] as? Bool
        }

        @Test("a clock gone back keeps a certificate expired until clock confirm; listen --json prints clock_went_back")
        func clockConfirm() async throws {
            try await ToolHarness.with { harness in
                let (alice, bob, dm) = try await harness.pair()
                // Bob's new laptop logs in before his phone carries a certificate (a login after it
                // would be unlinked on its own side, §10.7, and send nothing).
                let laptop = try await Self.login(harness, "bob", store: "bob-laptop")
                try await Self.certify(bob, under: Ed25519.PrivateKey(), notAfter: Self.notAfter(days: 1), harness: harness)
                #expect(try await Self.linked(harness, alice, bob, offset: 0) == true)
                #expect(try await Self.linked(harness, alice, bob, offset: 3 * 86_400) == false, "three days on, the certificate has expired")

                // Back to the real clock. A first message from a device Alice never saw (Bob's new laptop)
                // makes the listening device read Bob's listing (§2.9), and it reports the clock.
                let accepted = try await harness.tool("channels", "dm", alice.userID, "--store", laptop.store)
                #expect(accepted.status == 0, "\(accepted.summary)")
                let listen = try harness.start("listen", "--json", "--store", alice.store)
                let laptopSent = try await harness.tool("send", dm, "from the laptop", "--store", laptop.store)
                #expect(laptopSent.status == 0, "\(laptopSent.summary)")
                let reported = await listen.wait { output in output.objects.contains { $0["event"] as? String == "clock_went_back" } }
                listen.send(signal: SIGTERM)
                let output = await listen.finish()
                #expect(reported, "\(output.summary)")

                #expect(try await Self.linked(harness, alice, bob, offset: 0) == false, "the clock went back: the highest reading still judges it")
                let confirm = try await Self.tool(harness, offset: 0, "clock", "confirm", "--store", alice.store, "--json")
                #expect(confirm.status == 0, "\(confirm.summary)")
                #expect(try confirm.json()["confirmed"] as? Bool == true)
                #expect(try await Self.linked(harness, alice, bob, offset: 0) == true, "confirmed, the clock reads the certificate as current again")
            }
        }
    }
}
