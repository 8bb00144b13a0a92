import E2EEDevServer
import Foundation
import Testing

extension DevServerTests {
    @Suite("DevServer auth routes")
    struct AuthRouteTests {
        @Test func registerReturnsTokensForANewDevice() async throws {
            try await Harness.with { harness in
                let response = try await harness.call(.POST, "/api/v1/auth/register", json: .object([
                    "username": .string("alice"), "password": .string("password123"),
                ]))
                #expect(response.status == 201)
                let json = try #require(response.json)
                #expect(json["token_type"] == .string("bearer"))
                #expect(json["access_token"]?.stringValue?.isEmpty == false)
                #expect(json["refresh_token"]?.stringValue?.isEmpty == false)
                let userID = try #require(json["user_id"]?.stringValue)
                #expect(UUID(uuidString: userID) != nil && userID == userID.lowercased())
                #expect(json["device_id"]?.stringValue != nil)
            }
        }

        @Test func registerRefusesTakenAndInvalidInput() async throws {
            try await Harness.with { harness in
                _ = try await harness.register("alice")
                let taken = try await harness.call(.POST, "/api/v1/auth/register", json: .object([
                    "username": .string("alice"), "password": .string("password123"),
                ]))
                #expect(taken.status == 409)
                #expect(taken.detail != nil)
                for (username, password) in [("al", "password123"), ("bad name", "password123"), ("bob", "short")] {
                    let response = try await harness.call(.POST, "/api/v1/auth/register", json: .object([
                        "username": .string(username), "password": .string(password),
                    ]))
                    #expect(response.status == 422)
                    #expect(response.json?["detail"]?.arrayValue?.isEmpty == false)
                }
                let missing = try await harness.call(.POST, "/api/v1/auth/register", json: .object(["username": .string("carol")]))
                #expect(missing.status == 422)
            }
        }

        @Test func registerIsForbiddenOnAClosedServer() async throws {
            var configuration = DevServerConfiguration.testing()
            configuration.registrationOpen = false
            try await Harness.with(configuration) { harness in
                let response = try await harness.call(.POST, "/api/v1/auth/register", json: .object([
                    "username": .string("alice"), "password": .string("password123"),
                ]))
                #expect(response.status == 403)
            }
        }

        @Test func everyLoginCreatesANewDevice() async throws {
            try await Harness.with { harness in
                let first = try await harness.register("alice")
                let second = try await harness.login("alice")
                #expect(first.userID == second.userID)
                #expect(first.deviceID != second.deviceID)
                let devices = try await harness.call(.GET, "/api/v1/devices", token: second.accessToken)
                #expect(devices.json?.arrayValue?.count == 2)
                let wrong = try await harness.call(.POST, "/api/v1/auth/login", json: .object([
                    "username": .string("alice"), "password": .string("wrong-password"),
                ]))
                #expect(wrong.status == 401)
                let unknown = try await harness.call(.POST, "/api/v1/auth/login", json: .object([
                    "username": .string("nobody"), "password": .string("password123"),
                ]))
                #expect(unknown.status == 401)
            }
        }

        @Test func bannedUserCannotLogIn() async throws {
            try await Harness.with { harness in
                let alice = try await harness.register("alice")
                try await harness.server.setBanned(username: "alice", true)
                let login = try await harness.call(.POST, "/api/v1/auth/login", json: .object([
                    "username": .string("alice"), "password": .string("password123"),
                ]))
                #expect(login.status == 403)
                #expect(try await harness.call(.GET, "/api/v1/users/me", token: alice.accessToken).status == 403)
            }
        }

        @Test func refreshRotatesAndKillsTheOldToken() async throws {
            try await Harness.with { harness in
                let alice = try await harness.register("alice")
                let refreshed = try await harness.call(.POST, "/api/v1/auth/refresh", json: .object(["refresh_token": .string(alice.refreshToken)]))
                #expect(refreshed.status == 200)
                let rotated = try Harness.user("alice", refreshed)
                #expect(rotated.refreshToken != alice.refreshToken)
                #expect(rotated.deviceID == alice.deviceID)
                let reused = try await harness.call(.POST, "/api/v1/auth/refresh", json: .object(["refresh_token": .string(alice.refreshToken)]))
                #expect(reused.status == 401)
                let again = try await harness.call(.POST, "/api/v1/auth/refresh", json: .object(["refresh_token": .string(rotated.refreshToken)]))
                #expect(again.status == 200)
                #expect(try await harness.call(.GET, "/api/v1/users/me", token: rotated.accessToken).status == 200)
            }
        }

        @Test func logoutAndLogoutAll() async throws {
            try await Harness.with { harness in
                let alice = try await harness.register("alice")
                let other = try await harness.login("alice")
                let unknown = try await harness.call(.POST, "/api/v1/auth/logout", json: .object(["refresh_token": .string("nope")]))
                #expect(unknown.status == 204)
                let logout = try await harness.call(.POST, "/api/v1/auth/logout", json: .object(["refresh_token": .string(alice.refreshToken)]))
                #expect(logout.status == 204)
                #expect(try await harness.call(.POST, "/api/v1/auth/refresh", json: .object(["refresh_token": .string(alice.refreshToken)])).status == 401)
                #expect(try await harness.call(.POST, "/api/v1/auth/logout-all", token: alice.accessToken).status == 204)
                #expect(try await harness.call(.POST, "/api/v1/auth/refresh", json: .object(["refresh_token": .string(other.refreshToken)])).status == 401)
                // Access tokens cannot be revoked: they live until they expire.
                #expect(try await harness.call(.GET, "/api/v1/users/me", token: other.accessToken).status == 200)
            }
        }

        @Test func missingOrBadBearer() async throws {
            try await Harness.with { harness in
                let missing = try await harness.call(.GET, "/api/v1/users/me")
                #expect(missing.status == 401)
                #expect(missing.detail == "Not authenticated")
                let bad = try await harness.call(.GET, "/api/v1/users/me", token: "not-a-token")
                #expect(bad.status == 401)
            }
            var older = DevServerConfiguration.testing()
            older.missingBearerStatus = 403
            try await Harness.with(older) { harness in
                let missing = try await harness.call(.GET, "/api/v1/users/me")
                #expect(missing.status == 403)
                #expect(missing.detail == "Not authenticated")
            }
        }

        @Test func accessTokensExpireAfterTheirLifetime() async throws {
            let clock = DevServerClock.manual()
            try await Harness.with(.testing(clock: clock)) { harness in
                let alice = try await harness.register("alice")
                clock.advance(by: .seconds(15 * 60 - 1))
                #expect(try await harness.call(.GET, "/api/v1/users/me", token: alice.accessToken).status == 200)
                clock.advance(by: .seconds(1))
                #expect(try await harness.call(.GET, "/api/v1/users/me", token: alice.accessToken).status == 401)
                let refreshed = try await harness.call(.POST, "/api/v1/auth/refresh", json: .object(["refresh_token": .string(alice.refreshToken)]))
                #expect(refreshed.status == 200)
            }
        }

        @Test func refreshTokensExpireAfterSevenDays() async throws {
            let clock = DevServerClock.manual()
            try await Harness.with(.testing(clock: clock)) { harness in
                let alice = try await harness.register("alice")
                clock.advance(by: .seconds(7 * 24 * 3600))
                let response = try await harness.call(.POST, "/api/v1/auth/refresh", json: .object(["refresh_token": .string(alice.refreshToken)]))
                #expect(response.status == 401)
            }
        }
    }
}
