import E2EEDevServer
import Foundation
import Testing

extension DevServerTests {
    @Suite("DevServer user and device routes")
    struct UserRouteTests {
        @Test func meByIDSearchAndLookup() async throws {
            try await Harness.with { harness in
                let alice = try await harness.register("alice")
                let bob = try await harness.register("bob")
                let me = try await harness.call(.GET, "/api/v1/users/me", token: alice.accessToken)
                #expect(me.status == 200)
                #expect(me.json?["id"]?.stringValue == alice.userID)
                #expect(me.json?["username"]?.stringValue == "alice")
                let byID = try await harness.call(.GET, "/api/v1/users/\(bob.userID)", token: alice.accessToken)
                #expect(byID.json?["username"]?.stringValue == "bob")
                let unknown = try await harness.call(.GET, "/api/v1/users/\(UUID().uuidString.lowercased())", token: alice.accessToken)
                #expect(unknown.status == 404)
                let malformed = try await harness.call(.GET, "/api/v1/users/not-a-uuid", token: alice.accessToken)
                #expect(malformed.status == 422)
                let lookup = try await harness.call(.GET, "/api/v1/users/lookup?identity=bob%40localhost", token: alice.accessToken)
                #expect(lookup.json?["id"]?.stringValue == bob.userID)
                let foreign = try await harness.call(.GET, "/api/v1/users/lookup?identity=bob@elsewhere.example", token: alice.accessToken)
                #expect(foreign.status == 404)
                #expect(try await harness.call(.GET, "/api/v1/users/me").status == 401)
            }
        }

        @Test func searchReturnsAtMostTwenty() async throws {
            try await Harness.with { harness in
                var last: TestUser?
                for index in 0..<23 { last = try await harness.register("member\(index)") }
                let caller = try #require(last)
                let all = try await harness.call(.GET, "/api/v1/users/search?q=member", token: caller.accessToken)
                #expect(all.status == 200)
                #expect(all.json?.arrayValue?.count == 20)
                let one = try await harness.call(.GET, "/api/v1/users/search?q=member22", token: caller.accessToken)
                #expect(one.json?.arrayValue?.count == 1)
                #expect(try await harness.call(.GET, "/api/v1/users/search", token: caller.accessToken).status == 422)
            }
        }

        @Test func deletingADeviceRemovesItsBundleAndSessions() async throws {
            try await Harness.with { harness in
                let alice = try await harness.register("alice")
                let phone = try await harness.login("alice")
                let upload = try await harness.call(.POST, "/api/v1/keys/upload", json: KeyRouteTests.bundle(phone.deviceID), token: phone.accessToken)
                #expect(upload.status == 201)
                let deleted = try await harness.call(.DELETE, "/api/v1/devices/\(phone.deviceID)", token: alice.accessToken)
                #expect(deleted.status == 204)
                #expect(try await harness.call(.GET, "/api/v1/keys/\(phone.deviceID)/bundle", token: alice.accessToken).status == 404)
                #expect(try await harness.call(.GET, "/api/v1/users/me", token: phone.accessToken).status == 401)
                #expect(try await harness.call(.DELETE, "/api/v1/devices/\(phone.deviceID)", token: alice.accessToken).status == 404)
            }
        }
    }
}
