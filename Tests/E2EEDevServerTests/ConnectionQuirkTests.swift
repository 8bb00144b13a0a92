import E2EEDevServer
import Foundation
import Testing

extension DevServerTests {
    /// docs/spec/server-api.md §1 on the server side: rotated refresh tokens that are not committed yet,
    /// and keep-alive connections closed unanswered.
    @Suite("DevServer commit lag and dropped requests")
    struct ConnectionQuirkTests {
        private func refresh(_ harness: Harness, _ token: String) async throws -> APIResponse {
            try await harness.call(.POST, "/api/v1/auth/refresh", json: .object(["refresh_token": .string(token)]))
        }

        private func quirks(closeAfterLag: Bool) -> DevServerQuirks {
            var quirks = DevServerQuirks.none
            quirks.refreshTokenCommitLag = true
            quirks.closeConnectionAfterCommitLag = closeAfterLag
            return quirks
        }

        @Test func aRotatedRefreshTokenIsRefusedUntilItsRotationCommits() async throws {
            let clock = DevServerClock.manual()
            try await Harness.with(.testing(quirks: quirks(closeAfterLag: false), clock: clock)) { harness in
                let alice = try await harness.register("alice")
                // A token from register is not a rotation: usable at once.
                let rotated = try Harness.user("alice", try await refresh(harness, alice.refreshToken))
                #expect(try await refresh(harness, rotated.refreshToken).status == 401)
                clock.advance(by: .milliseconds(149))
                #expect(try await refresh(harness, rotated.refreshToken).status == 401, "still within the delay")
                clock.advance(by: .milliseconds(1))
                let next = try await refresh(harness, rotated.refreshToken)
                #expect(next.status == 200, "the refusals did not spend the token")
                #expect(try await refresh(harness, rotated.refreshToken).status == 401, "spent now")
            }
        }

        @Test func withoutTheQuirkARotatedTokenWorksAtOnce() async throws {
            try await Harness.with(.testing(clock: .manual())) { harness in
                let alice = try await harness.register("alice")
                let rotated = try Harness.user("alice", try await refresh(harness, alice.refreshToken))
                #expect(try await refresh(harness, rotated.refreshToken).status == 200)
            }
        }

        @Test func theRequestAfterALagRefusalIsClosedUnansweredOnThatConnection() async throws {
            let clock = DevServerClock.manual()
            try await Harness.with(.testing(quirks: quirks(closeAfterLag: true), clock: clock)) { harness in
                let alice = try await harness.register("alice")
                let rotated = try Harness.user("alice", try await refresh(harness, alice.refreshToken))
                #expect(try await refresh(harness, rotated.refreshToken).status == 401)
                // The same keep-alive connection carries the next request: closed, no answer.
                await #expect(throws: (any Error).self) { _ = try await harness.call(.GET, "/api/v1/users/me", token: rotated.accessToken) }
                #expect(await harness.server.faults.droppedRequestCount == 1)
                #expect(try await harness.call(.GET, "/api/v1/users/me", token: rotated.accessToken).status == 200)
            }
        }

        @Test func droppedRequestsAreNotHandled() async throws {
            try await Harness.with { harness in
                let alice = try await harness.register("alice")
                let channel = try await harness.createChannel(alice)
                await harness.server.faults.dropNextRequests(1)
                await #expect(throws: (any Error).self) { _ = try await harness.send(alice, channel, "lost") }
                #expect(await harness.server.faults.droppedRequestCount == 1)
                let page = try await harness.call(.GET, "/api/v1/channels/\(channel)/messages", token: alice.accessToken)
                #expect(page.json?["messages"]?.arrayValue?.isEmpty == true, "the dropped POST was never handled")
            }
        }
    }
}
