import E2EEDevServer
import Foundation
import Testing

extension DevServerTests {
    @Suite("DevServer key routes")
    struct KeyRouteTests {
        static func bundle(_ deviceID: String, oneTime: [String] = ["otp-1", "otp-2"], identity: String = "identity") -> JSONValue {
            .object([
                "device_id": .string(deviceID),
                "identity_key": .string(identity),
                "signed_pre_key": .string("spk"),
                "signed_pre_key_signature": .string("sig"),
                "one_time_pre_keys": .array(oneTime.map(JSONValue.string)),
            ])
        }

        @Test func uploadReplacesTheWholeBundle() async throws {
            try await Harness.with(.testing(quirks: .reference)) { harness in
                let alice = try await harness.register("alice")
                let first = try await harness.call(.POST, "/api/v1/keys/upload", json: Self.bundle(alice.deviceID), token: alice.accessToken)
                #expect(first.status == 201)
                #expect(first.json == .object(["status": .string("ok")]))
                let second = try await harness.call(.POST, "/api/v1/keys/upload",
                                                    json: Self.bundle(alice.deviceID, oneTime: ["new"], identity: "identity-2"), token: alice.accessToken)
                #expect(second.status == 201)
                let fetched = try await harness.call(.GET, "/api/v1/keys/\(alice.deviceID)/bundle", token: alice.accessToken)
                #expect(fetched.json?["identity_key"]?.stringValue == "identity-2")
                #expect(fetched.json?["one_time_pre_key"]?.stringValue == "new")
                #expect(fetched.json?["one_time_pre_key_count"]?.intValue == 1)
            }
        }

        @Test func uploadErrors() async throws {
            try await Harness.with { harness in
                let alice = try await harness.register("alice")
                let bob = try await harness.register("bob")
                let foreign = try await harness.call(.POST, "/api/v1/keys/upload", json: Self.bundle(bob.deviceID), token: alice.accessToken)
                #expect(foreign.status == 404)
                let long = String(repeating: "k", count: 256)
                let tooLong = try await harness.call(.POST, "/api/v1/keys/upload", json: Self.bundle(alice.deviceID, identity: long), token: alice.accessToken)
                #expect(tooLong.status == 500)
                #expect(tooLong.json == nil, "the reference server's 500s are plain text")
                let atLimit = try await harness.call(.POST, "/api/v1/keys/upload",
                                                     json: Self.bundle(alice.deviceID, identity: String(repeating: "k", count: 255)), token: alice.accessToken)
                #expect(atLimit.status == 201)
                let missing = try await harness.call(.POST, "/api/v1/keys/upload", json: .object(["device_id": .string(alice.deviceID)]), token: alice.accessToken)
                #expect(missing.status == 422)
            }
        }

        @Test func oneTimeAppendsAndCounts() async throws {
            try await Harness.with { harness in
                let alice = try await harness.register("alice")
                let body: JSONValue = .object(["device_id": .string(alice.deviceID), "one_time_pre_keys": .array([.string("a"), .string("b")])])
                let noBundle = try await harness.call(.POST, "/api/v1/keys/one-time", json: body, token: alice.accessToken)
                #expect(noBundle.status == 404)
                _ = try await harness.call(.POST, "/api/v1/keys/upload", json: Self.bundle(alice.deviceID), token: alice.accessToken)
                let appended = try await harness.call(.POST, "/api/v1/keys/one-time", json: body, token: alice.accessToken)
                #expect(appended.status == 201)
                #expect(appended.json == .object(["status": .string("ok"), "count": .int(4)]))
            }
        }

        @Test func bundlesListOnePerDeviceWithABundle() async throws {
            try await Harness.with { harness in
                let alice = try await harness.register("alice")
                let laptop = try await harness.login("alice")
                _ = try await harness.login("alice") // a third device without a bundle
                let bob = try await harness.register("bob")
                let empty = try await harness.call(.GET, "/api/v1/keys/\(alice.userID)/bundles", token: bob.accessToken)
                #expect(empty.status == 200)
                #expect(empty.json == .array([]))
                _ = try await harness.call(.POST, "/api/v1/keys/upload", json: Self.bundle(alice.deviceID), token: alice.accessToken)
                _ = try await harness.call(.POST, "/api/v1/keys/upload", json: Self.bundle(laptop.deviceID), token: laptop.accessToken)
                let bundles = try await harness.call(.GET, "/api/v1/keys/\(alice.userID)/bundles", token: bob.accessToken)
                let devices = Set(bundles.json?.arrayValue?.compactMap { $0["device_id"]?.stringValue } ?? [])
                #expect(devices == [alice.deviceID, laptop.deviceID])
                let unknown = try await harness.call(.GET, "/api/v1/keys/\(UUID().uuidString.lowercased())/bundle", token: bob.accessToken)
                #expect(unknown.status == 404)
            }
        }

        @Test(arguments: [true, false])
        func oneTimePreKeyPopQuirk(neverPopped: Bool) async throws {
            var quirks = DevServerQuirks.none
            quirks.oneTimePreKeyNeverPopped = neverPopped
            try await Harness.with(.testing(quirks: quirks)) { harness in
                let alice = try await harness.register("alice")
                let bob = try await harness.register("bob")
                _ = try await harness.call(.POST, "/api/v1/keys/upload", json: Self.bundle(alice.deviceID, oneTime: ["one", "two"]), token: alice.accessToken)
                var seen: [String?] = []
                var counts: [Int?] = []
                for _ in 0..<3 {
                    let bundle = try await harness.call(.GET, "/api/v1/keys/\(alice.deviceID)/bundle", token: bob.accessToken)
                    seen.append(bundle.json?["one_time_pre_key"]?.stringValue)
                    counts.append(bundle.json?["one_time_pre_key_count"]?.intValue)
                }
                if neverPopped {
                    #expect(seen == ["one", "one", "one"])
                    #expect(counts == [2, 2, 2])
                } else {
                    #expect(seen == ["one", "two", nil])
                    #expect(counts == [1, 0, 0])
                }
            }
        }

        @Test func bundleFetchLeavingFewSendsLowOTPToTheOwnerRepeatedly() async throws {
            try await Harness.with(.testing(quirks: .reference)) { harness in
                let alice = try await harness.register("alice")
                let bob = try await harness.register("bob")
                _ = try await harness.call(.POST, "/api/v1/keys/upload", json: Self.bundle(alice.deviceID, oneTime: ["a", "b", "c"]), token: alice.accessToken)
                let socket = try await harness.connect(alice)
                for _ in 0..<2 {
                    _ = try await harness.call(.GET, "/api/v1/keys/\(alice.userID)/bundles", token: bob.accessToken)
                    let event = await socket.next(type: "keys.low_otp")
                    #expect(event?["device_id"]?.stringValue == alice.deviceID)
                    #expect(event?["remaining"]?.intValue == 2) // list length − 1 (docs/spec/server-api.md §13)
                }
                await socket.close()
            }
        }

        @Test func noLowOTPWhenEnoughRemain() async throws {
            try await Harness.with { harness in
                let alice = try await harness.register("alice")
                let bob = try await harness.register("bob")
                let keys = (0..<12).map { "k\($0)" }
                _ = try await harness.call(.POST, "/api/v1/keys/upload", json: Self.bundle(alice.deviceID, oneTime: keys), token: alice.accessToken)
                let socket = try await harness.connect(alice)
                _ = try await harness.call(.GET, "/api/v1/keys/\(alice.deviceID)/bundle", token: bob.accessToken) // 11 left
                #expect(await socket.next(type: "keys.low_otp", timeout: .milliseconds(300)) == nil)
                _ = try await harness.call(.GET, "/api/v1/keys/\(alice.deviceID)/bundle", token: bob.accessToken) // 10 left
                _ = try await harness.call(.GET, "/api/v1/keys/\(alice.deviceID)/bundle", token: bob.accessToken) // 9 left
                #expect(await socket.next(type: "keys.low_otp")?["remaining"]?.intValue == 9)
                await socket.close()
            }
        }

        @Test func senderKeyIndexIsAnUpsertReadableByAnyone() async throws {
            try await Harness.with { harness in
                let alice = try await harness.register("alice")
                let mallory = try await harness.register("mallory")
                let channel = try await harness.createChannel(alice)
                let path = "/api/v1/keys/channels/\(channel)/sender-keys"
                func body(_ key: String) -> JSONValue {
                    .object(["device_id": .string(alice.deviceID), "sender_key_public": .string(key), "chain_key": .string("chain")])
                }
                #expect(try await harness.call(.POST, path, json: body("pk1"), token: alice.accessToken).status == 201)
                #expect(try await harness.call(.POST, path, json: body("pk2"), token: alice.accessToken).status == 201)
                let list = try await harness.call(.GET, path, token: mallory.accessToken)
                #expect(list.status == 200)
                let entries = try #require(list.json?.arrayValue)
                #expect(entries.count == 1)
                #expect(entries.first?["sender_key_public"]?.stringValue == "pk2")
                #expect(entries.first?["message_number"]?.intValue == 0)
                let unknownChannel = try await harness.call(.POST, "/api/v1/keys/channels/\(UUID().uuidString)/sender-keys", json: body("pk"), token: alice.accessToken)
                #expect(unknownChannel.status == 500)
                #expect(unknownChannel.json == nil)
                let tooLong = try await harness.call(.POST, path, json: body(String(repeating: "x", count: 256)), token: alice.accessToken)
                #expect(tooLong.status == 500)
            }
        }

        @Test func x3dhSetupSlotIsOverwritable() async throws {
            try await Harness.with { harness in
                let alice = try await harness.register("alice")
                let bob = try await harness.register("bob")
                let channel = UUID().uuidString.lowercased()
                let path = "/api/v1/keys/channels/\(channel)/x3dh-setup"
                #expect(try await harness.call(.GET, path, token: alice.accessToken).status == 404)
                #expect(try await harness.call(.POST, path, json: .object(["v": .int(1)]), token: alice.accessToken).status == 201)
                #expect(try await harness.call(.POST, path, json: .object(["v": .int(2)]), token: bob.accessToken).status == 201)
                #expect(try await harness.call(.GET, path, token: alice.accessToken).json == .object(["v": .int(2)]))
            }
        }
    }
}
