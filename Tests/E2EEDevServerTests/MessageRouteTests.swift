import E2EEDevServer
import Foundation
import Testing

extension DevServerTests {
    @Suite("DevServer message routes")
    struct MessageRouteTests {
        @Test func sendReturnsTheFullMessage() async throws {
            try await Harness.with { harness in
                let alice = try await harness.register("alice")
                let channel = try await harness.createChannel(alice)
                let response = try await harness.call(.POST, "/api/v1/channels/\(channel)/messages", json: .object([
                    "content": .string("ciphertext"), "content_type": .string("e2ee"), "protocol_version": .int(2),
                    "sender_device_id": .string(alice.deviceID),
                ]), token: alice.accessToken)
                #expect(response.status == 201)
                let message = try #require(response.json)
                #expect(message["channel_id"] == .string(channel))
                #expect(message["sender_id"] == .string(alice.userID))
                #expect(message["sender_device_id"] == .string(alice.deviceID))
                #expect(message["content"] == .string("ciphertext"))
                #expect(message["content_type"] == .string("e2ee"))
                #expect(message["protocol_version"] == .int(2))
                #expect(message["reply_to"] == .null)
                #expect(message["attachments"] == .array([]))
                #expect(message["edited_at"] == .null)
                #expect(message["reply_to_id"] == .null)
                let empty = try await harness.call(.POST, "/api/v1/channels/\(channel)/messages", json: .object(["content": .string("")]), token: alice.accessToken)
                #expect(empty.status == 201, "empty content is accepted")
                #expect(empty.json?["content_type"] == .string("text"))
            }
        }

        @Test func sendErrors() async throws {
            try await Harness.with { harness in
                let alice = try await harness.register("alice")
                let bob = try await harness.register("bob")
                let channel = try await harness.createChannel(alice)
                let path = "/api/v1/channels/\(channel)/messages"
                #expect(try await harness.call(.POST, path, json: .object(["content": .string("x")]), token: bob.accessToken).status == 403)
                #expect(try await harness.call(.GET, path, token: bob.accessToken).status == 403)
                let longType = try await harness.call(.POST, path, json: .object([
                    "content": .string("x"), "content_type": .string(String(repeating: "t", count: 33)),
                ]), token: alice.accessToken)
                #expect(longType.status == 500)
                #expect(longType.json == nil)
                let unknownDevice = try await harness.call(.POST, path, json: .object([
                    "content": .string("x"), "sender_device_id": .string(UUID().uuidString),
                ]), token: alice.accessToken)
                #expect(unknownDevice.status == 500)
                // sender_device_id is not tied to the caller: any existing device is accepted.
                let claimed = try await harness.call(.POST, path, json: .object([
                    "content": .string("x"), "sender_device_id": .string(bob.deviceID),
                ]), token: alice.accessToken)
                #expect(claimed.status == 201)
                #expect(try await harness.call(.POST, path, json: .object([:]), token: alice.accessToken).status == 422)
                #expect(try await harness.call(.POST, "/api/v1/channels/\(UUID().uuidString)/messages", json: .object(["content": .string("x")]),
                                               token: alice.accessToken).status == 404)
            }
        }

        @Test func editAndDeleteOwnMessagesWithEvents() async throws {
            try await Harness.with { harness in
                let alice = try await harness.register("alice")
                let bob = try await harness.register("bob")
                let channel = try await harness.createChannel(alice)
                _ = try await harness.call(.POST, "/api/v1/channels/\(channel)/join", token: bob.accessToken)
                let socket = try await harness.connect(bob)
                let original = try await harness.send(alice, channel, "first")
                let id = try #require(original["id"]?.stringValue)
                let reply = try await harness.call(.POST, "/api/v1/channels/\(channel)/messages",
                                                   json: .object(["content": .string("re"), "reply_to_id": .string(id)]), token: bob.accessToken)
                let replyID = try #require(reply.json?["id"]?.stringValue)
                #expect(try await harness.call(.PATCH, "/api/v1/channels/messages/\(id)", json: .object(["content": .string("x")]), token: bob.accessToken).status == 403)
                let edited = try await harness.call(.PATCH, "/api/v1/channels/messages/\(id)", json: .object(["content": .string("second")]), token: alice.accessToken)
                #expect(edited.status == 200)
                #expect(edited.json?["content"] == .string("second"))
                #expect(edited.json?["edited_at"]?.stringValue != nil)
                let editEvent = try #require(await socket.next(type: "message.edit"))
                #expect(editEvent["message"]?["id"] == .string(id))
                #expect(editEvent["message"]?["content"] == .string("second"))
                #expect(editEvent["message"]?["channel_id"] == .string(channel))
                #expect(editEvent["message"]?["edited_at"]?.stringValue != nil)
                #expect(try await harness.call(.DELETE, "/api/v1/channels/messages/\(id)", token: bob.accessToken).status == 403)
                #expect(try await harness.call(.DELETE, "/api/v1/channels/messages/\(id)", token: alice.accessToken).status == 204)
                let deleteEvent = try #require(await socket.next(type: "message.delete"))
                #expect(deleteEvent == .object(["type": .string("message.delete"), "message_id": .string(id), "channel_id": .string(channel)]))
                #expect(try await harness.call(.DELETE, "/api/v1/channels/messages/\(id)", token: alice.accessToken).status == 404)
                let history = try await harness.call(.GET, "/api/v1/channels/\(channel)/messages", token: alice.accessToken)
                let remaining = try #require(history.json?["messages"]?.arrayValue)
                #expect(remaining.map { $0["id"] } == [.string(replyID)])
                #expect(remaining.first?["reply_to_id"] == .null, "deleting a message nulls reply_to_id on its replies")
                await socket.close()
            }
        }

        @Test func messageNewReachesTheSendersOwnSockets() async throws {
            try await Harness.with { harness in
                let alice = try await harness.register("alice")
                let channel = try await harness.createChannel(alice)
                let phone = try await harness.connect(alice)
                let laptop = try await harness.connect(alice)
                let sent = try await harness.send(alice, channel, "hello")
                for socket in [phone, laptop] {
                    let event = await socket.next(type: "message.new")
                    #expect(event?["message"]?["id"] == sent["id"])
                    #expect(event?["message"]?["content"] == .string("hello"))
                    await socket.close()
                }
            }
        }
    }
}
