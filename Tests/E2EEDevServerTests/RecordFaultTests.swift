import E2EEDevServer
import Foundation
import Testing

extension DevServerTests {
    /// `serveRecord(device:record:toViewer:)`: what the bundle routes serve as one device's
    /// signed prekey record, to one viewing device or to all.
    @Suite("DevServer record faults")
    struct RecordFaultTests {
        /// A 141-byte record (the v2 length) and a 64-byte signature: the server never parses them.
        static let forgedRecord = Data(repeating: 0x02, count: 141)
        static let forgedSignature = Data(repeating: 0xAB, count: 64)

        /// Bob's uploaded bundle, as each of `viewers` is served it: `(spk, signature)` or `nil`
        /// when Bob's device is missing from `GET /keys/{bob}/bundles`; the single-device route
        /// must agree (404 when missing).
        static func served(_ harness: Harness, bob: TestUser, to viewer: TestUser) async throws -> [String]? {
            let list = try await harness.call(.GET, "/api/v1/keys/\(bob.userID)/bundles", token: viewer.accessToken)
            #expect(list.status == 200)
            let entry = list.json?.arrayValue?.first { $0["device_id"]?.stringValue == bob.deviceID }
            let single = try await harness.call(.GET, "/api/v1/keys/\(bob.deviceID)/bundle", token: viewer.accessToken)
            guard let entry else {
                #expect(single.status == 404)
                #expect(single.detail == "Key bundle not found")
                return nil
            }
            #expect(single.status == 200)
            #expect(single.json?["signed_pre_key"] == entry["signed_pre_key"])
            #expect(entry["identity_key"]?.stringValue == "identity", "the rest of the bundle is the stored one")
            return [entry["signed_pre_key"]?.stringValue ?? "?", entry["signed_pre_key_signature"]?.stringValue ?? "?"]
        }

        static func upload(_ harness: Harness, _ user: TestUser, oneTime: [String] = ["otp-1", "otp-2"]) async throws {
            let bundle = KeyRouteTests.bundle(user.deviceID, oneTime: oneTime)
            #expect(try await harness.call(.POST, "/api/v1/keys/upload", json: bundle, token: user.accessToken).status == 201)
        }

        @Test func givenBytesToOneViewerThenToAllThenCleared() async throws {
            try await Harness.with { harness in
                let (alice, bob, carol) = (try await harness.register("alice"), try await harness.register("bob"), try await harness.register("carol"))
                try await Self.upload(harness, bob)
                let stored = ["spk", "sig"]
                let forged = [Self.forgedRecord.base64EncodedString(), Self.forgedSignature.base64EncodedString()]
                #expect(forged[0].count == 188)
                await harness.server.faults.serveRecord(device: bob.deviceID, record: .bytes(Self.forgedRecord, signature: Self.forgedSignature),
                                                        toViewer: alice.deviceID)
                #expect(try await Self.served(harness, bob: bob, to: alice) == forged)
                #expect(try await Self.served(harness, bob: bob, to: carol) == stored, "other viewers get the stored record")
                #expect(try await Self.served(harness, bob: bob, to: bob) == stored)

                await harness.server.faults.serveRecord(device: bob.deviceID, record: .given(signedPreKey: "old", signature: "old-sig"))
                #expect(try await Self.served(harness, bob: bob, to: carol) == ["old", "old-sig"])
                #expect(try await Self.served(harness, bob: bob, to: alice) == forged, "a viewer's own setting wins")

                await harness.server.faults.serveRecord(device: bob.deviceID, record: .current)
                for viewer in [alice, bob, carol] {
                    #expect(try await Self.served(harness, bob: bob, to: viewer) == stored, "current for all clears every setting")
                }
            }
        }

        @Test func absentLeavesTheDeviceOutWithoutPoppingItsPrekeys() async throws {
            try await Harness.with { harness in   // quirks off: a fetch pops a one-time prekey
                let (alice, bob, carol) = (try await harness.register("alice"), try await harness.register("bob"), try await harness.register("carol"))
                try await Self.upload(harness, bob)
                let second = try await harness.login("bob")
                try await Self.upload(harness, second, oneTime: ["second-otp"])
                await harness.server.faults.serveRecord(device: bob.deviceID, record: .absent)
                #expect(try await Self.served(harness, bob: bob, to: alice) == nil)
                let list = try await harness.call(.GET, "/api/v1/keys/\(bob.userID)/bundles", token: alice.accessToken)
                #expect(list.json?.arrayValue?.compactMap { $0["device_id"]?.stringValue } == [second.deviceID], "Bob's other device is listed")

                // One viewer may still see it while everyone else does not.
                await harness.server.faults.serveRecord(device: bob.deviceID, record: .current, toViewer: carol.deviceID)
                #expect(try await Self.served(harness, bob: bob, to: carol) == ["spk", "sig"])
                #expect(try await Self.served(harness, bob: bob, to: alice) == nil)

                await harness.server.faults.reset()
                #expect(try await Self.served(harness, bob: bob, to: alice) == ["spk", "sig"], "the stored bundle was never changed")
            }
        }

        @Test func hiddenFetchesHandOutNoPrekey() async throws {
            try await Harness.with { harness in
                let (alice, bob) = (try await harness.register("alice"), try await harness.register("bob"))
                try await Self.upload(harness, bob, oneTime: ["otp-1", "otp-2"])
                let socket = try await harness.connect(bob)
                await harness.server.faults.serveRecord(device: bob.deviceID, record: .absent, toViewer: alice.deviceID)
                for _ in 0..<3 { #expect(try await Self.served(harness, bob: bob, to: alice) == nil) }
                #expect(await socket.next(type: "keys.low_otp", timeout: .milliseconds(300)) == nil, "no fetch happened")
                await harness.server.faults.serveRecord(device: bob.deviceID, record: .current)
                let bundle = try await harness.call(.GET, "/api/v1/keys/\(bob.deviceID)/bundle", token: alice.accessToken)
                #expect(bundle.json?["one_time_pre_key"]?.stringValue == "otp-1", "the hidden fetches popped nothing")
                #expect(await socket.next(type: "keys.low_otp")?["remaining"] == .int(1))
                await socket.close()
            }
        }

        @Test func adminRouteServesRecords() async throws {
            try await Harness.with { harness in
                let (alice, bob, carol) = (try await harness.register("alice"), try await harness.register("bob"), try await harness.register("carol"))
                try await Self.upload(harness, bob)
                let set = try await harness.call(.POST, "/_dev/faults", json: .object([
                    "serve_record": .array([
                        .object(["device_id": .string(bob.deviceID), "record": .string("none")]),
                        .object(["device_id": .string(bob.deviceID), "to_viewer": .string(alice.deviceID),
                                 "record": .object(["signed_pre_key": .string("AgAA"), "signed_pre_key_signature": .string("q6s=")])]),
                    ]),
                ]))
                #expect(set.status == 204)
                #expect(try await Self.served(harness, bob: bob, to: alice) == ["AgAA", "q6s="])
                #expect(try await Self.served(harness, bob: bob, to: carol) == nil)

                let bad = try await harness.call(.POST, "/_dev/faults", json: .object([
                    "serve_record": .object(["device_id": .string(bob.deviceID), "record": .string("nothing")]),
                ]))
                #expect(bad.status == 422)
                let missing = try await harness.call(.POST, "/_dev/faults", json: .object([
                    "serve_record": .object(["record": .string("none")]),
                ]))
                #expect(missing.status == 422)
                #expect(missing.json?["detail"]?.arrayValue?.first?["loc"] == .array(["body", "serve_record", "device_id"].map(JSONValue.string)))

                let cleared = try await harness.call(.POST, "/_dev/faults", json: .object([
                    "serve_record": .object(["device_id": .string(bob.deviceID), "record": .string("current")]),
                ]))
                #expect(cleared.status == 204)
                #expect(try await Self.served(harness, bob: bob, to: alice) == ["spk", "sig"])
                #expect(try await Self.served(harness, bob: bob, to: carol) == ["spk", "sig"])
            }
        }
    }
}
