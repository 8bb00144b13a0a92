import E2EEDevServer
import E2EEMessaging
import E2EETestSupport
import E2EETransport
import Foundation
import Testing

extension IntegrationTests {
    /// Issue 43 item 10 (and item 6's names): a second device of Bob's that learned his DM with
    /// Alice as a request opens "the DM with Alice" as that DM — without asking the server for
    /// one, which may answer with a second — and reads her next message there.
    @Suite("Opening a DM this device knows")
    struct KnownDirectMessageTests {
        @Test("openDirectMessage on bob's new device reuses his DM with alice (no POST /channels/dm), accepted with her")
        func newDeviceReusesTheDM() async throws {
            try await MessagingHarness.with { harness in
                let alice = try await harness.register("alice")
                let bob = try await harness.register("bob")
                try await harness.trust([alice, bob])
                let dm = try await harness.acceptedDM(alice, bob)
                try await alice.send(text: "before the laptop", to: dm.id)
                await alice.waitForOutbox()

                let counter = CountingServer.Box()
                let laptop = try await harness.login("bob", api: { counter.wrap($0) })
                try await harness.trust([alice, bob, laptop])
                _ = try await laptop.refreshChannels()
                let opened = try await laptop.openDirectMessage(with: alice.userID)
                #expect(opened.id == dm.id)
                #expect(counter.server?.directMessagesOpened == 0, "the server was asked for a DM the device knows")
                #expect(try await laptop.directMessageParticipant(dm.id) == alice.userID)
                #expect(try await laptop.channelRequests().isEmpty)
                try await laptop.send(text: "from the laptop", to: dm.id)
                await laptop.waitForOutbox()
                try await alice.send(text: "after the laptop", to: dm.id)
                await alice.waitForOutbox()
                try await laptop.sync()
                #expect(try await TimelineChecks.readableTexts(laptop, dm.id).contains("after the laptop"))

                // Names for ids: asked once per user, then kept.
                #expect(try await laptop.user(id: alice.userID).username == "alice")
                #expect(try await laptop.user(id: alice.userID).username == "alice")
                #expect(counter.server?.usersRead == 1)
                await alice.shutdown()
                await bob.shutdown()
                await laptop.shutdown()
            }
        }
    }
}

/// The real client, counting the calls a test asserts were (not) made.
final class CountingServer: ForwardingChatServer, @unchecked Sendable {
    /// Holds the server a harness wraps.
    final class Box: @unchecked Sendable {
        private let lock = NSLock()
        private var wrapped: CountingServer?
        var server: CountingServer? { lock.withLock { wrapped } }

        func wrap(_ base: HTTPChatServer) -> any ChatServerAPI {
            let server = CountingServer(base)
            lock.withLock { wrapped = server }
            return server
        }
    }

    let base: any ChatServerAPI
    private let lock = NSLock()
    private var opened = 0
    private var users = 0

    init(_ base: any ChatServerAPI) { self.base = base }

    /// `POST /channels/dm` calls.
    var directMessagesOpened: Int { lock.withLock { opened } }
    /// `GET /users/{id}` calls.
    var usersRead: Int { lock.withLock { users } }

    func openDirectMessage(userID: UserID) async throws -> ServerChannel {
        lock.withLock { opened += 1 }
        return try await base.openDirectMessage(userID: userID)
    }

    func user(id: UserID) async throws -> ServerUser {
        lock.withLock { users += 1 }
        return try await base.user(id: id)
    }
}
