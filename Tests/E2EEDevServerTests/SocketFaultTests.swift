import E2EEDevServer
import Foundation
import Testing

extension DevServerTests {
    /// The socket faults that act on one user's sockets, refusals with `Retry-After`, and
    /// sockets that stop reading.
    @Suite("DevServer socket faults")
    struct SocketFaultTests {
        @Test func rawFramesGoAsIsToThatUsersSocketsOnly() async throws {
            try await Harness.with { harness in
                let alice = try await harness.register("alice")
                let bob = try await harness.register("bob")
                let aliceSocket = try await harness.connect(alice)
                let bobSocket = try await harness.connect(bob)
                let huge = String(repeating: "y", count: 300_000)
                for text in ["not json", "[1]", #"{"type":"reaction.add"}"#, huge] {
                    await harness.server.faults.sendRawFrame(text, toUser: alice.userID)
                }
                try await waitUntil { await aliceSocket.inbox.frames.count == 4 }
                #expect(await aliceSocket.inbox.frames == ["not json", "[1]", #"{"type":"reaction.add"}"#, huge])
                #expect(await bobSocket.inbox.frames.isEmpty)
                await aliceSocket.close()
                await bobSocket.close()
            }
        }

        @Test func closeSocketsSendsTheChosenCodeAndReason() async throws {
            try await Harness.with { harness in
                let alice = try await harness.register("alice")
                let bob = try await harness.register("bob")
                let first = try await harness.connect(alice)
                let second = try await harness.connect(alice)
                let bobSocket = try await harness.connect(bob)
                await harness.server.faults.closeSockets(ofUser: alice.userID, code: 4001, reason: "maintenance")
                for socket in [first, second] {
                    #expect(await socket.waitClosed())
                    #expect(await socket.inbox.closeCode == 4001)
                    #expect(await socket.inbox.closeReason == "maintenance")
                }
                #expect(await !bobSocket.waitClosed(timeout: .milliseconds(300)))
                try await waitUntil { await harness.server.socketCount(ofUser: alice.userID) == 0 }
                await bobSocket.close()
            }
        }

        @Test func refusedUpgradesCanCarryRetryAfter() async throws {
            try await Harness.with { harness in
                let alice = try await harness.register("alice")
                let ticket = try await harness.ticket(alice)
                await harness.server.faults.refuseUpgrades(status: 429, retryAfter: 7)
                let refused = try await harness.handshake(ticket: ticket)
                #expect(refused.status == 429)
                #expect(refused.headers.first(name: "Retry-After") == "7")
                await harness.server.faults.refuseUpgrades(status: 503)
                let unavailable = try await harness.handshake(ticket: ticket)
                #expect(unavailable.status == 503)
                #expect(unavailable.headers.first(name: "Retry-After") == nil)
            }
        }

        @Test func socketsThatIgnoreClientFramesLeavePingsUnanswered() async throws {
            try await Harness.with { harness in
                let alice = try await harness.register("alice")
                // The client library pings every 200 ms and closes when a pong is late.
                let answered = try await SocketProbe.connect(url: harness.server.webSocketURL + "?ticket=" + (try await harness.ticket(alice)),
                                                             autoPing: .milliseconds(200))
                #expect(await !answered.waitClosed(timeout: .seconds(1)), "pongs come back")
                await harness.server.faults.ignoreClientFrames(true)
                let ignored = try await SocketProbe.connect(url: harness.server.webSocketURL + "?ticket=" + (try await harness.ticket(alice)),
                                                            autoPing: .milliseconds(200))
                #expect(await ignored.waitClosed(), "no pong: the client gives up")
                await harness.server.faults.ignoreClientFrames(false)
                await answered.close()
            }
        }

        @Test func adminRouteReachesSockets() async throws {
            try await Harness.with { harness in
                let alice = try await harness.register("alice")
                let socket = try await harness.connect(alice)
                _ = try await harness.call(.POST, "/_dev/faults", json: .object([
                    "raw_frame": .object(["user_id": .string(alice.userID), "text": .string("garbage")]),
                ]))
                try await waitUntil { await socket.inbox.frames == ["garbage"] }
                let set = try await harness.call(.POST, "/_dev/faults", json: .object([
                    "close_sockets": .object(["user_id": .string(alice.userID), "code": .int(4002), "reason": .string("bye")]),
                    "refuse_upgrades": .object(["status": .int(429), "retry_after": .int(3)]),
                    "drop_next_requests": .int(1),
                    "ignore_client_frames": .bool(true),
                ]))
                #expect(set.status == 204)
                #expect(await socket.waitClosed())
                #expect(await socket.inbox.closeCode == 4002)
                #expect(await harness.server.faults.refuseUpgradesRetryAfter == 3)
                #expect(await harness.server.faults.ignoreClientFrames)
                await #expect(throws: (any Error).self) { _ = try await harness.call(.GET, "/api/v1/users/me", token: alice.accessToken) }
                #expect(try await harness.call(.GET, "/api/v1/users/me", token: alice.accessToken).status == 200)
            }
        }
    }
}
