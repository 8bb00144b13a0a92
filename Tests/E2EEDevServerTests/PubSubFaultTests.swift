import E2EEDevServer
import Foundation
import Testing

extension DevServerTests {
    /// The "pub/sub dies" fault (docs/spec/server-api.md §12, issue 17): open sockets stay open and get
    /// no events until a new socket connects, which heals the fan-out for everyone.
    @Suite("DevServer pub/sub fault")
    struct PubSubFaultTests {
        @Test func openSocketsStayOpenAndDeafUntilANewSocketConnects() async throws {
            try await Harness.with { harness in
                let alice = try await harness.register("alice")
                let socket = try await harness.connect(alice)
                let channel = try await harness.createChannel(alice)
                _ = try await harness.send(alice, channel, "before")
                #expect(await socket.next(type: "message.new")?["message"]?["content"] == .string("before"))

                await harness.server.faults.killPubSub()
                #expect(await harness.server.faults.pubSubDead)
                _ = try await harness.send(alice, channel, "while deaf")
                #expect(await socket.next(type: "message.new", timeout: .milliseconds(500)) == nil)
                #expect(await !socket.waitClosed(timeout: .milliseconds(100)), "the socket stays open")

                let bob = try await harness.register("bob")
                let healer = try await harness.connect(bob)  // any user's new socket heals it
                #expect(await !harness.server.faults.pubSubDead)
                _ = try await harness.send(alice, channel, "after")
                #expect(await socket.next(type: "message.new")?["message"]?["content"] == .string("after"))
                await healer.close()
                await socket.close()
            }
        }

        /// What the client's echo check rests on (docs/spec/sync.md §11.6): a socket subscribed to
        /// a channel id that no channel has gets its own `typing.stop` there back as an event —
        /// while the fan-out lives; once it is dead, nothing comes back.
        @Test func aTypingFrameForAnOwnChannelIDEchoesUntilTheFanOutDies() async throws {
            try await Harness.with { harness in
                let alice = try await harness.register("alice")
                let socket = try await harness.connect(alice)
                let check = UUID().uuidString.lowercased()
                socket.send(.object(["type": .string("subscribe"), "channel_id": .string(check)]))
                socket.send(.object(["type": .string("typing.stop"), "channel_id": .string(check)]))
                let echo = await socket.next(type: "typing.stop")
                #expect(echo == .object(["type": .string("typing.stop"), "user_id": .string(alice.userID), "channel_id": .string(check)]))

                await harness.server.faults.killPubSub()
                socket.send(.object(["type": .string("typing.stop"), "channel_id": .string(check)]))
                #expect(await socket.next(type: "typing.stop", timeout: .milliseconds(500)) == nil)
                await socket.close()
            }
        }

        @Test func theAdminRouteKillsIt() async throws {
            try await Harness.with { harness in
                let set = try await harness.call(.POST, "/_dev/faults", json: .object(["kill_pubsub": .bool(true)]))
                #expect(set.status == 204)
                #expect(await harness.server.faults.pubSubDead)
            }
        }
    }
}
