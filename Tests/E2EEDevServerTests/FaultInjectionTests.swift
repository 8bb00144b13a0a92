import E2EEDevServer
import Foundation
import Testing

extension DevServerTests {
    @Suite("DevServer fault injection")
    struct FaultInjectionTests {
        @Test func failNextRequests() async throws {
            try await Harness.with { harness in
                let alice = try await harness.register("alice")
                await harness.server.faults.failNextRequests(2, status: 503)
                let first = try await harness.call(.GET, "/api/v1/users/me", token: alice.accessToken)
                #expect(first.status == 503)
                #expect(first.detail == "Injected failure")
                #expect(try await harness.call(.GET, "/api/v1/users/me", token: alice.accessToken).status == 503)
                #expect(try await harness.call(.GET, "/api/v1/users/me", token: alice.accessToken).status == 200)
                await harness.server.faults.failNextRequests(1, status: 500, plainText: true)
                let plain = try await harness.call(.GET, "/api/v1/users/me", token: alice.accessToken)
                #expect(plain.status == 500)
                #expect(plain.json == nil)
            }
        }

        @Test func failNextAppliesToHandshakesToo() async throws {
            try await Harness.with { harness in
                let alice = try await harness.register("alice")
                let ticket = try await harness.ticket(alice)
                await harness.server.faults.failNextRequests(1, status: 502)
                #expect(try await harness.handshakeStatus(ticket: ticket) == 502)
                // The ticket was not spent by the failed handshake.
                let socket = try await SocketProbe.connect(url: harness.server.webSocketURL + "?ticket=" + ticket)
                await socket.close()
            }
        }

        @Test func refuseUpgrades() async throws {
            try await Harness.with { harness in
                let alice = try await harness.register("alice")
                await harness.server.faults.refuseUpgrades(status: 503)
                #expect(try await harness.handshakeStatus(ticket: try await harness.ticket(alice)) == 503)
                await #expect(throws: HarnessError.self) { _ = try await harness.connect(alice) }
                await harness.server.faults.refuseUpgrades(status: nil)
                let socket = try await harness.connect(alice)
                await socket.close()
            }
        }

        @Test func expireTokensEarly() async throws {
            try await Harness.with { harness in
                let alice = try await harness.register("alice")
                await harness.server.expireAccessTokens()
                #expect(try await harness.call(.GET, "/api/v1/users/me", token: alice.accessToken).status == 401)
                // Tokens issued after the cut-off are accepted.
                try await pause(.milliseconds(5))
                let refreshed = try Harness.user("alice", try await harness.call(.POST, "/api/v1/auth/refresh",
                                                                                  json: .object(["refresh_token": .string(alice.refreshToken)])))
                #expect(try await harness.call(.GET, "/api/v1/users/me", token: refreshed.accessToken).status == 200)
            }
        }

        @Test func dropSocketAfterFrames() async throws {
            try await Harness.with { harness in
                let alice = try await harness.register("alice")
                let channel = try await harness.createChannel(alice)
                await harness.server.faults.dropSockets(afterFrames: 2)
                let socket = try await harness.connect(alice)
                _ = try await harness.send(alice, channel, "one")
                #expect(await !socket.waitClosed(timeout: .milliseconds(300)))
                _ = try await harness.send(alice, channel, "two")
                #expect(await socket.waitClosed())
                #expect(await socket.unread().count == 2)
            }
        }

        @Test func pingsCountAsFramesAndSilenceStopsThem() async throws {
            var configuration = DevServerConfiguration.testing()
            configuration.pingInterval = .milliseconds(50)
            try await Harness.with(configuration) { harness in
                let alice = try await harness.register("alice")
                await harness.server.faults.dropSockets(afterFrames: 3)
                let pinged = try await harness.connect(alice)
                #expect(await pinged.waitClosed(), "three pings drop the socket")
                #expect(await pinged.unread().isEmpty)
                await harness.server.faults.goSilent(true)
                let silent = try await harness.connect(alice)
                #expect(await !silent.waitClosed(timeout: .milliseconds(500)), "a silent server sends no pings")
                await silent.close()
            }
        }

        @Test func silenceDropsEvents() async throws {
            try await Harness.with { harness in
                let alice = try await harness.register("alice")
                let channel = try await harness.createChannel(alice)
                let socket = try await harness.connect(alice)
                await harness.server.faults.goSilent(true)
                _ = try await harness.send(alice, channel, "lost")
                #expect(await socket.next(type: "message.new", timeout: .milliseconds(300)) == nil)
                await harness.server.faults.goSilent(false)
                _ = try await harness.send(alice, channel, "heard")
                #expect(await socket.next(type: "message.new")?["message"]?["content"] == .string("heard"))
                await socket.close()
            }
        }

        @Test func duplicateEvents() async throws {
            try await Harness.with { harness in
                let alice = try await harness.register("alice")
                let channel = try await harness.createChannel(alice)
                let socket = try await harness.connect(alice)
                await harness.server.faults.duplicateEvents(true)
                let sent = try await harness.send(alice, channel, "twice")
                #expect(await socket.next(type: "message.new")?["message"]?["id"] == sent["id"])
                #expect(await socket.next(type: "message.new")?["message"]?["id"] == sent["id"])
                await socket.close()
            }
        }

        @Test func delayEvents() async throws {
            try await Harness.with { harness in
                let alice = try await harness.register("alice")
                let channel = try await harness.createChannel(alice)
                let socket = try await harness.connect(alice)
                await harness.server.faults.delayEvents(by: .milliseconds(700))
                _ = try await harness.send(alice, channel, "slow")
                #expect(await socket.next(type: "message.new", timeout: .milliseconds(300)) == nil)
                #expect(await socket.next(type: "message.new", timeout: .seconds(3)) != nil)
                await socket.close()
            }
        }

        @Test func reorderEvents() async throws {
            try await Harness.with { harness in
                let alice = try await harness.register("alice")
                let channel = try await harness.createChannel(alice)
                let socket = try await harness.connect(alice)
                await harness.server.faults.reorderEvents(true)
                _ = try await harness.send(alice, channel, "first")
                _ = try await harness.send(alice, channel, "second")
                _ = try await harness.send(alice, channel, "lone")
                try await waitUntil { await socket.unread().count == 3 }
                let order = await socket.unread().compactMap { $0["message"]?["content"]?.stringValue }
                #expect(order == ["second", "first", "lone"], "pairs swap; a lone event follows after the hold")
                await socket.close()
            }
        }

        @Test func rateLimitUsesAFixedWindowWithRetryAfter() async throws {
            let clock = DevServerClock.manual()
            var configuration = DevServerConfiguration.testing(clock: clock)
            configuration.rateLimit = .init(requests: 5, window: .seconds(60), retryAfter: .seconds(10))
            try await Harness.with(configuration) { harness in
                for _ in 0..<5 {
                    // 4xx answers count too.
                    #expect(try await harness.call(.GET, "/api/v1/users/me").status == 401)
                }
                let limited = try await harness.call(.GET, "/api/v1/users/me")
                #expect(limited.status == 429)
                #expect(limited.detail == "Rate limit exceeded")
                #expect(limited.headers.first(name: "Retry-After") == "10")
                let login = try await harness.call(.POST, "/api/v1/auth/login", json: .object([:]))
                #expect(login.status == 429, "auth routes are limited too")
                clock.advance(by: .seconds(59))
                #expect(try await harness.call(.GET, "/api/v1/users/me").status == 429)
                clock.advance(by: .seconds(1))
                #expect(try await harness.call(.GET, "/api/v1/users/me").status == 401)
            }
        }

        @Test func rateLimitCountsHandshakes() async throws {
            let clock = DevServerClock.manual()
            var configuration = DevServerConfiguration.testing(clock: clock)
            configuration.rateLimit = .init(requests: 3, window: .seconds(60), retryAfter: .seconds(10))
            try await Harness.with(configuration) { harness in
                let alice = try await harness.register("alice")   // 1
                let ticket = try await harness.ticket(alice)       // 2
                #expect(try await harness.handshakeStatus(ticket: "unknown") == 403) // 3
                let limited = try await harness.handshake(ticket: ticket)
                #expect(limited.status == 429)
                #expect(limited.headers.first(name: "Retry-After") == "10")
                #expect(limited.detail == "Rate limit exceeded")
                clock.advance(by: .seconds(59))
                #expect(try await harness.call(.GET, "/api/v1/users/me", token: alice.accessToken).status == 429)
                clock.advance(by: .seconds(1)) // a new window
                let socket = try await harness.connect(alice)
                await socket.close()
            }
        }

        @Test func adminRouteSwitchesFaults() async throws {
            try await Harness.with { harness in
                let alice = try await harness.register("alice")
                let set = try await harness.call(.POST, "/_dev/faults", json: .object([
                    "fail_next": .object(["count": .int(1), "status": .int(504)]),
                ]))
                #expect(set.status == 204)
                #expect(try await harness.call(.GET, "/api/v1/users/me", token: alice.accessToken).status == 504)
                #expect(try await harness.call(.GET, "/api/v1/users/me", token: alice.accessToken).status == 200)
                _ = try await harness.call(.POST, "/_dev/faults", json: .object(["expire_tokens": .bool(true)]))
                #expect(try await harness.call(.GET, "/api/v1/users/me", token: alice.accessToken).status == 401)
            }
        }
    }
}
