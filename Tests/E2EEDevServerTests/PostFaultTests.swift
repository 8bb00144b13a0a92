import E2EEDevServer
import Foundation
import Testing

extension DevServerTests {
    /// Dropped, held and released posts, reposts and forged rows (`dropPosts`, `holdPosts`,
    /// `releasePosts`, `repost`, `postAs`), through the actor and through `POST /_dev/faults`.
    @Suite("DevServer post faults")
    struct PostFaultTests {
        /// Posts `content` with `contentType` and the user's own device as `sender_device_id`.
        static func post(_ harness: Harness, _ user: TestUser, _ channelID: String, _ content: String,
                         type contentType: String = "text") async throws -> JSONValue {
            let response = try await harness.call(.POST, "/api/v1/channels/\(channelID)/messages", json: .object([
                "content": .string(content), "content_type": .string(contentType), "protocol_version": .int(2),
                "sender_device_id": .string(user.deviceID),
            ]), token: user.accessToken)
            #expect(response.status == 201)
            return try #require(response.json)
        }

        /// The contents of `channelID`'s newest page as `user` reads it, oldest first.
        static func page(_ harness: Harness, _ user: TestUser, _ channelID: String) async throws -> [JSONValue] {
            let response = try await harness.call(.GET, "/api/v1/channels/\(channelID)/messages", token: user.accessToken)
            #expect(response.status == 200)
            return response.json?["messages"]?.arrayValue ?? []
        }

        static func contents(_ messages: [JSONValue]) -> [String] { messages.compactMap { $0["content"]?.stringValue } }

        /// A group channel of `owner` with `members` added.
        static func channel(_ harness: Harness, _ owner: TestUser, _ members: [TestUser]) async throws -> String {
            let id = try await harness.createChannel(owner)
            for member in members {
                let added = try await harness.call(.POST, "/api/v1/channels/\(id)/members", json: .object(["user_id": .string(member.userID)]),
                                                   token: owner.accessToken)
                #expect(added.status == 201)
            }
            return id
        }

        /// The contents of the `message.new` events `socket` has received so far (waits briefly).
        static func heard(_ socket: SocketProbe) async throws -> [String] {
            try await pause(.milliseconds(300))
            return await socket.unread().filter { $0["type"]?.stringValue == "message.new" }.compactMap { $0["message"]?["content"]?.stringValue }
        }

        @Test func droppedPostsAreAnsweredButNeverStoredNorPublished() async throws {
            try await Harness.with { harness in
                let alice = try await harness.register("alice")
                let channel = try await harness.createChannel(alice)
                let socket = try await harness.connect(alice)
                await harness.server.faults.dropPosts(contentType: "e2ee.link", count: 2)
                let lost = try await Self.post(harness, alice, channel, "lost 1", type: "e2ee.link")
                #expect(lost["id"]?.stringValue?.isEmpty == false)
                #expect(lost["content_type"] == .string("e2ee.link"))
                _ = try await Self.post(harness, alice, channel, "kept text")
                _ = try await Self.post(harness, alice, channel, "lost 2", type: "e2ee.link")
                _ = try await Self.post(harness, alice, channel, "kept link", type: "e2ee.link")
                #expect(Self.contents(try await Self.page(harness, alice, channel)) == ["kept text", "kept link"])
                #expect(await harness.server.faults.droppedPostCount == 2)
                #expect(try await Self.heard(socket) == ["kept text", "kept link"])
                let refused = try await harness.call(.POST, "/api/v1/channels/\(channel)/messages",
                                                     json: .object(["content": .string("x"), "content_type": .string("e2ee.link")]))
                #expect(refused.status == 401, "a post the server refuses anyway is refused as usual")
                await socket.close()
            }
        }

        @Test func duplicatedPostsAreStoredAndPublishedTwiceUnderTwoIds() async throws {
            try await Harness.with { harness in
                let (alice, bob) = (try await harness.register("alice"), try await harness.register("bob"))
                let channel = try await Self.channel(harness, alice, [bob])
                let socket = try await harness.connect(bob)
                await harness.server.faults.duplicatePosts(contentType: "e2ee.link", count: 1)
                let answered = try await Self.post(harness, alice, channel, "twice", type: "e2ee.link")
                _ = try await Self.post(harness, alice, channel, "text once")
                _ = try await Self.post(harness, alice, channel, "link once", type: "e2ee.link")
                let page = try await Self.page(harness, bob, channel)
                #expect(Self.contents(page) == ["twice", "twice", "text once", "link once"])
                #expect(page.first?["id"] == answered["id"], "the post itself under the id it was answered with")
                #expect(page[1]["id"] != answered["id"] && page[1]["sender_device_id"] == .string(alice.deviceID), "the copy: a new id, the same sender device")
                #expect(try await Self.heard(socket) == ["twice", "twice", "text once", "link once"])
                #expect(await harness.server.faults.duplicatedPostCount == 1)
                await socket.close()
            }
        }

        @Test func heldPostsAreStoredAndPublishedAtReleaseDatedThen() async throws {
            let clock = DevServerClock.manual()
            try await Harness.with(.testing(clock: clock)) { harness in
                let (alice, bob) = (try await harness.register("alice"), try await harness.register("bob"))
                let channel = try await Self.channel(harness, alice, [bob])
                let socket = try await harness.connect(bob)
                await harness.server.faults.holdPosts(contentType: "e2ee.link", fromDevice: alice.deviceID)
                let held = try await Self.post(harness, alice, channel, "held", type: "e2ee.link")
                let answeredAt = try #require(held["created_at"]?.stringValue)
                clock.advance(by: .seconds(1))
                _ = try await Self.post(harness, alice, channel, "alice text")
                _ = try await Self.post(harness, bob, channel, "bob link", type: "e2ee.link")
                #expect(await harness.server.faults.heldPostCount == 1)
                #expect(Self.contents(try await Self.page(harness, bob, channel)) == ["alice text", "bob link"])
                #expect(try await Self.heard(socket) == ["alice text", "bob link"])

                clock.advance(by: .seconds(600))
                let released = try await harness.server.faults.releasePosts()
                #expect(released == [try #require(held["id"]?.stringValue)])
                let page = try await Self.page(harness, bob, channel)
                #expect(Self.contents(page) == ["alice text", "bob link", "held"])
                let stored = try #require(page.last)
                #expect(stored["id"] == held["id"], "stored under the id it was answered with")
                #expect(stored["sender_device_id"] == .string(alice.deviceID))
                #expect(stored["created_at"]?.stringValue != answeredAt, "dated at release")
                let event = await socket.next { $0["message"]?["id"] == held["id"] }
                #expect(event?["message"]?["created_at"] == stored["created_at"])

                _ = try await Self.post(harness, alice, channel, "after", type: "e2ee.link")
                #expect(await harness.server.faults.heldPostCount == 0, "the release ended the hold")
                #expect(Self.contents(try await Self.page(harness, bob, channel)).last == "after")
                await socket.close()
            }
        }

        @Test func repostCopiesTheRowIntoAnyChannelWithANewIdAndTime() async throws {
            let clock = DevServerClock.manual()
            try await Harness.with(.testing(clock: clock)) { harness in
                let (alice, bob) = (try await harness.register("alice"), try await harness.register("bob"))
                let first = try await Self.channel(harness, alice, [bob])
                let second = try await Self.channel(harness, bob, [])
                let socket = try await harness.connect(bob)
                let original = try await Self.post(harness, alice, first, "grant", type: "e2ee.link")
                clock.advance(by: .seconds(5))
                let faults = harness.server.faults
                let sameChannel = try await faults.repost(messageID: try #require(original["id"]?.stringValue), channelID: first)
                let otherChannel = try await faults.repost(messageID: try #require(original["id"]?.stringValue), channelID: second)
                #expect(Set([sameChannel, otherChannel, original["id"]?.stringValue]).count == 3)

                let firstPage = try await Self.page(harness, bob, first)
                try #require(firstPage.count == 2)
                #expect(firstPage.map { $0["id"]?.stringValue } == [original["id"]?.stringValue, sameChannel])
                let copy = try #require(try await Self.page(harness, bob, second).first)
                for field in ["content", "content_type", "sender_id", "sender_device_id", "protocol_version"] {
                    #expect(copy[field] == original[field], "\(field) is copied")
                    #expect(firstPage[1][field] == original[field])
                }
                #expect(copy["id"]?.stringValue == otherChannel)
                #expect(copy["channel_id"]?.stringValue == second)
                #expect(copy["created_at"] != original["created_at"], "a new time")
                #expect(await socket.next { $0["message"]?["id"]?.stringValue == sameChannel } != nil)
                #expect(await socket.next { $0["message"]?["id"]?.stringValue == otherChannel } != nil)

                await #expect(throws: FaultInjector.FaultError.messageNotFound("00000000-0000-0000-0000-000000000001")) {
                    try await faults.repost(messageID: "00000000-0000-0000-0000-000000000001", channelID: first)
                }
                await #expect(throws: FaultInjector.FaultError.channelNotFound("00000000-0000-0000-0000-000000000002")) {
                    try await faults.repost(messageID: try #require(original["id"]?.stringValue), channelID: "00000000-0000-0000-0000-000000000002")
                }
                await socket.close()
            }
        }

        @Test func postAsShowsAForgedRowToOneDeviceOnly() async throws {
            try await Harness.with { harness in
                let (alice, bob) = (try await harness.register("alice"), try await harness.register("bob"))
                let laptop = try await harness.login("bob")
                let channel = try await Self.channel(harness, alice, [bob])
                let (aliceSocket, bobSocket, laptopSocket) = (try await harness.connect(alice), try await harness.connect(bob), try await harness.connect(laptop))
                let faults = harness.server.faults
                let forged = try await faults.postAs(userID: alice.userID, deviceID: alice.deviceID, channelID: channel,
                                                     contentType: "application/x-e2ee-dm", content: "AwE=", visibleTo: bob.deviceID)
                let seen = try #require(try await Self.page(harness, bob, channel).first)
                #expect(seen["id"]?.stringValue == forged)
                #expect(seen["sender_id"] == .string(alice.userID))
                #expect(seen["sender_device_id"] == .string(alice.deviceID))
                #expect(seen["content_type"] == .string("application/x-e2ee-dm"))
                #expect(seen["protocol_version"] == .int(2))
                #expect(try await Self.page(harness, laptop, channel).isEmpty, "Bob's other device does not see it")
                #expect(try await Self.page(harness, alice, channel).isEmpty)
                #expect(try await Self.heard(bobSocket) == ["AwE="])
                #expect(try await Self.heard(laptopSocket).isEmpty)
                #expect(try await Self.heard(aliceSocket).isEmpty)

                // Its edit goes to the same device only.
                let edit = try await harness.call(.PATCH, "/api/v1/channels/messages/\(forged)", json: .object(["content": .string("AwI=")]),
                                                  token: alice.accessToken)
                #expect(edit.status == 200)
                #expect(await bobSocket.next(type: "message.edit") != nil)
                #expect(await laptopSocket.next(type: "message.edit", timeout: .milliseconds(300)) == nil)

                // Shown to all, from a device that does not exist and a user who is no member.
                let carol = try await harness.register("carol")
                let ghost = UUID().uuidString.lowercased()
                let open = try await faults.postAs(userID: carol.userID, deviceID: ghost, channelID: channel, contentType: "text", content: "hi")
                for user in [alice, bob, laptop] {
                    let newest = try await Self.page(harness, user, channel).last
                    #expect(newest?["id"]?.stringValue == open)
                    #expect(newest?["sender_device_id"] == .string(ghost))
                }
                #expect(try await Self.heard(laptopSocket) == ["hi"])
                await #expect(throws: FaultInjector.FaultError.userNotFound(ghost)) {
                    try await faults.postAs(userID: ghost, deviceID: nil, channelID: channel, contentType: "text", content: "x")
                }
                for socket in [aliceSocket, bobSocket, laptopSocket] { await socket.close() }
            }
        }

        @Test func adminRouteSwitchesPostFaults() async throws {
            try await Harness.with { harness in
                let (alice, bob) = (try await harness.register("alice"), try await harness.register("bob"))
                let channel = try await Self.channel(harness, alice, [bob])
                let set = try await harness.call(.POST, "/_dev/faults", json: .object([
                    "drop_posts": .object(["content_type": .string("e2ee.link"), "count": .int(1)]),
                    "hold_posts": .object(["from_device": .string(alice.deviceID)]),
                ]))
                #expect(set.status == 204)
                _ = try await Self.post(harness, alice, channel, "dropped", type: "e2ee.link")
                let held = try await Self.post(harness, alice, channel, "held")
                _ = try await Self.post(harness, bob, channel, "bob")
                #expect(Self.contents(try await Self.page(harness, bob, channel)) == ["bob"])

                let release = try await harness.call(.POST, "/_dev/faults", json: .object([
                    "release_posts": .bool(true),
                    "repost": .object(["message_id": try #require(held["id"]), "channel_id": .string(channel)]),
                    "post_as": .object(["user_id": .string(alice.userID), "device_id": .string(alice.deviceID), "channel_id": .string(channel),
                                        "content_type": .string("text"), "content": .string("forged"), "visible_to": .string(bob.deviceID)]),
                ]))
                #expect(release.status == 200)
                #expect(release.json?["released"] == .array([try #require(held["id"])]))
                let page = try await Self.page(harness, bob, channel)
                try #require(Self.contents(page) == ["bob", "held", "held", "forged"])
                #expect(page[2]["id"] == release.json?["reposted"])
                #expect(page[3]["id"] == release.json?["posted_as"])
                #expect(Self.contents(try await Self.page(harness, alice, channel)) == ["bob", "held", "held"])

                let unknown = try await harness.call(.POST, "/_dev/faults", json: .object([
                    "repost": .object(["message_id": .string(UUID().uuidString), "channel_id": .string(channel)]),
                ]))
                #expect(unknown.status == 404)
                #expect(unknown.detail == "Message not found")
                let malformed = try await harness.call(.POST, "/_dev/faults", json: .object([
                    "post_as": .object(["user_id": .string(alice.userID), "channel_id": .string(channel)]),
                ]))
                #expect(malformed.status == 422)
                #expect(malformed.json?["detail"]?.arrayValue?.first?["loc"] == .array(["body", "post_as", "content_type"].map(JSONValue.string)))
            }
        }

        @Test func resetDiscardsHeldPostsAndEndsDropsAndHolds() async throws {
            try await Harness.with { harness in
                let alice = try await harness.register("alice")
                let channel = try await harness.createChannel(alice)
                await harness.server.faults.holdPosts(contentType: nil, fromDevice: nil)
                await harness.server.faults.dropPosts(contentType: "e2ee.link", count: 5)
                _ = try await Self.post(harness, alice, channel, "held")
                await harness.server.faults.reset()
                #expect(await harness.server.faults.heldPostCount == 0)
                #expect(try await harness.server.faults.releasePosts().isEmpty)
                _ = try await Self.post(harness, alice, channel, "text")
                _ = try await Self.post(harness, alice, channel, "link", type: "e2ee.link")
                #expect(Self.contents(try await Self.page(harness, alice, channel)) == ["text", "link"])
            }
        }

        @Test func anInjectorOfNoServerWritesNothing() async throws {
            let faults = FaultInjector()
            await #expect(throws: FaultInjector.FaultError.notAttached) { try await faults.releasePosts() }
            await #expect(throws: FaultInjector.FaultError.notAttached) {
                try await faults.postAs(userID: "u", deviceID: nil, channelID: "c", contentType: "text", content: "x")
            }
        }
    }
}
