import E2EEDevServer
import Foundation
import Testing

extension DevServerTests {
    @Suite("DevServer WebSocket")
    struct WebSocketTests {
        @Test func ticketIsSingleUseAtTheHandshake() async throws {
            try await Harness.with { harness in
                let alice = try await harness.register("alice")
                let ticket = try await harness.ticket(alice)
                let socket = try await SocketProbe.connect(url: harness.server.webSocketURL + "?ticket=" + ticket)
                let reused = try await harness.handshake(ticket: ticket)
                #expect(reused.status == 403)
                #expect(reused.text.isEmpty) // the reference server's bare 403 (docs/spec/server-api.md §14)
                await #expect(throws: HarnessError.self) {
                    _ = try await SocketProbe.connect(url: harness.server.webSocketURL + "?ticket=" + ticket)
                }
                #expect(try await harness.handshakeStatus(ticket: "made-up") == 403)
                #expect(try await harness.call(.GET, "/ws").status == 403)
                await socket.close()
            }
        }

        @Test func ticketExpiresAfterThirtySeconds() async throws {
            let clock = DevServerClock.manual()
            try await Harness.with(.testing(clock: clock)) { harness in
                let alice = try await harness.register("alice")
                let fresh = try await harness.ticket(alice)
                clock.advance(by: .seconds(29))
                let socket = try await SocketProbe.connect(url: harness.server.webSocketURL + "?ticket=" + fresh)
                await socket.close()
                let stale = try await harness.ticket(alice)
                clock.advance(by: .seconds(30))
                #expect(try await harness.handshakeStatus(ticket: stale) == 403)
            }
        }

        @Test func ticketNeedsABearer() async throws {
            try await Harness.with { harness in
                let response = try await harness.call(.POST, "/api/v1/auth/ws-ticket")
                #expect(response.status == 401)
            }
        }

        @Test func channelCreatedAfterConnectNeedsAnExplicitSubscribe() async throws {
            try await Harness.with(.testing(quirks: .reference)) { harness in
                let alice = try await harness.register("alice")
                let bob = try await harness.register("bob")
                let early = try await harness.createChannel(alice, name: "early")
                _ = try await harness.call(.POST, "/api/v1/channels/\(early)/join", token: bob.accessToken)
                let socket = try await harness.connect(bob)
                try await pause(.milliseconds(400)) // past the late-subscribe gap
                #expect(await harness.server.subscriptions(ofUser: bob.userID) == [early])
                let late = try await harness.createChannel(alice, name: "late")
                _ = try await harness.call(.POST, "/api/v1/channels/\(late)/join", token: bob.accessToken)
                _ = try await harness.send(alice, late, "unseen")
                #expect(await socket.next(type: "message.new", timeout: .milliseconds(500)) == nil)
                socket.send(.object(["type": .string("subscribe"), "channel_id": .string(late)]))
                try await waitUntil { await harness.server.subscriptions(ofUser: bob.userID).contains(late) }
                _ = try await harness.send(alice, late, "seen")
                #expect(await socket.next(type: "message.new")?["message"]?["content"] == .string("seen"))
                await socket.close()
            }
        }

        @Test func withoutTheQuirkLaterChannelsAreAutoSubscribed() async throws {
            try await Harness.with { harness in
                let alice = try await harness.register("alice")
                let socket = try await harness.connect(alice)
                let channel = try await harness.createChannel(alice)
                _ = try await harness.send(alice, channel, "hi")
                #expect(await socket.next(type: "message.new")?["message"]?["content"] == .string("hi"))
                await socket.close()
            }
        }

        @Test func subscriptionsArePerUserAndSurviveLeave() async throws {
            try await Harness.with(.testing(quirks: .reference)) { harness in
                let alice = try await harness.register("alice")
                let bob = try await harness.register("bob")
                let joined = try await harness.createChannel(alice, name: "joined")
                let foreign = try await harness.createChannel(alice, name: "foreign")
                _ = try await harness.call(.POST, "/api/v1/channels/\(joined)/join", token: bob.accessToken)
                let first = try await harness.connect(bob)
                let second = try await harness.connect(bob)
                try await waitUntil { await harness.server.subscriptions(ofUser: bob.userID).contains(joined) }
                // Subscribing on one socket delivers to every socket of the user, without a membership check.
                first.send(.object(["type": .string("subscribe"), "channel_id": .string(foreign)]))
                try await waitUntil { await harness.server.subscriptions(ofUser: bob.userID).contains(foreign) }
                _ = try await harness.send(alice, foreign, "not for bob")
                #expect(await second.next(type: "message.new")?["message"]?["content"] == .string("not for bob"))
                #expect(await first.next(type: "message.new") != nil)
                // Leaving does not end the subscription.
                _ = try await harness.call(.POST, "/api/v1/channels/\(joined)/leave", token: bob.accessToken)
                _ = try await harness.send(alice, joined, "after leave")
                #expect(await first.next(type: "message.new")?["message"]?["content"] == .string("after leave"))
                await first.close()
                await second.close()
                try await waitUntil { await harness.server.socketCount(ofUser: bob.userID) == 0 }
                #expect(await harness.server.subscriptions(ofUser: bob.userID).isEmpty)
            }
        }

        @Test func lateSubscribeGapLosesEvents() async throws {
            var quirks = DevServerQuirks.none
            quirks.lateSubscribeAfterConnect = true
            quirks.subscribeGap = .milliseconds(600)
            try await Harness.with(.testing(quirks: quirks)) { harness in
                let alice = try await harness.register("alice")
                let channel = try await harness.createChannel(alice)
                let socket = try await harness.connect(alice)
                _ = try await harness.send(alice, channel, "in the gap")
                try await pause(.milliseconds(800))
                _ = try await harness.send(alice, channel, "after the gap")
                let event = await socket.next(type: "message.new")
                #expect(event?["message"]?["content"] == .string("after the gap"))
                #expect(await socket.next(type: "message.new", timeout: .milliseconds(200)) == nil)
                await socket.close()
            }
        }

        @Test func typingIsRelayedToSubscribers() async throws {
            try await Harness.with { harness in
                let alice = try await harness.register("alice")
                let bob = try await harness.register("bob")
                let channel = try await harness.createChannel(alice)
                _ = try await harness.call(.POST, "/api/v1/channels/\(channel)/join", token: bob.accessToken)
                let aliceSocket = try await harness.connect(alice)
                let bobSocket = try await harness.connect(bob)
                aliceSocket.send(.object(["type": .string("typing.start"), "channel_id": .string(channel)]))
                let event = await bobSocket.next(type: "typing.start")
                #expect(event == .object(["type": .string("typing.start"), "user_id": .string(alice.userID), "channel_id": .string(channel)]))
                aliceSocket.send(.object(["type": .string("presence.update"), "status": .string("away")]))
                aliceSocket.send(.object(["type": .string("typing.stop"), "channel_id": .string(channel)]))
                #expect(await bobSocket.next(type: "typing.stop") != nil)
                await aliceSocket.close()
                await bobSocket.close()
            }
        }

        @Test func invalidJSONGetsAnErrorAndMalformedFramesDropTheConnection() async throws {
            try await Harness.with { harness in
                let alice = try await harness.register("alice")
                let socket = try await harness.connect(alice)
                socket.send("not json")
                let reply = await socket.next { $0["error"] != nil }
                #expect(reply == .object(["error": .string("Invalid JSON")]))
                #expect(await !socket.waitClosed(timeout: .milliseconds(200)))
                socket.send(.object(["type": .string("subscribe"), "channel_id": .string("not-a-uuid")]))
                #expect(await socket.waitClosed())
                let other = try await harness.connect(alice)
                other.send("[1, 2]")
                #expect(await other.waitClosed())
            }
        }

        @Test(arguments: [true, false])
        func socketTimestampFormat(withOffset: Bool) async throws {
            var quirks = DevServerQuirks.none
            quirks.socketTimestampsWithOffset = withOffset
            let clock = DevServerClock.manual(start: Date(timeIntervalSince1970: 1_780_000_000))
            try await Harness.with(.testing(quirks: quirks, clock: clock)) { harness in
                let alice = try await harness.register("alice")
                let channel = try await harness.createChannel(alice)
                let socket = try await harness.connect(alice)
                let whole = try await harness.send(alice, channel, "whole second")
                #expect(whole["created_at"] == .string("2026-05-28T20:26:40Z"))
                let event = await socket.next(type: "message.new")
                #expect(event?["message"]?["created_at"] == .string(withOffset ? "2026-05-28T20:26:40+00:00" : "2026-05-28T20:26:40Z"))
                clock.advance(by: .microseconds(1234))
                let fraction = try await harness.send(alice, channel, "fraction")
                #expect(fraction["created_at"] == .string("2026-05-28T20:26:40.001234Z"))
                await socket.close()
            }
        }
    }
}

/// Polls `condition` for up to 5 s.
func waitUntil(_ condition: @Sendable () async -> Bool) async throws {
    for _ in 0..<500 {
        if await condition() { return }
        try await pause(.milliseconds(10))
    }
    throw HarnessError.timedOut
}
