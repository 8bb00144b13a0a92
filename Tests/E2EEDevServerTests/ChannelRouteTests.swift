import E2EEDevServer
import Foundation
import Testing

extension DevServerTests {
    @Suite("DevServer channel and member routes")
    struct ChannelRouteTests {
        @Test func createListReadRenameDelete() async throws {
            try await Harness.with { harness in
                let alice = try await harness.register("alice")
                let bob = try await harness.register("bob")
                let created = try await harness.call(.POST, "/api/v1/channels", json: .object(["name": .string("general")]), token: alice.accessToken)
                #expect(created.status == 201)
                let channel = try #require(created.json)
                #expect(channel["is_dm"] == .bool(false))
                #expect(channel["encryption_type"] == .string("sender_keys"))
                #expect(channel["created_by"] == .string(alice.userID))
                #expect(channel["is_federated"] == .bool(false))
                #expect(channel["created_at"]?.stringValue?.hasSuffix("Z") == true)
                let id = try #require(channel["id"]?.stringValue)
                let list = try await harness.call(.GET, "/api/v1/channels", token: alice.accessToken)
                #expect(list.json?.arrayValue?.compactMap { $0["id"]?.stringValue } == [id])
                #expect(try await harness.call(.GET, "/api/v1/channels", token: bob.accessToken).json == .array([]))
                #expect(try await harness.call(.GET, "/api/v1/channels/\(id)", token: alice.accessToken).status == 200)
                #expect(try await harness.call(.GET, "/api/v1/channels/\(id)", token: bob.accessToken).status == 403)
                #expect(try await harness.call(.GET, "/api/v1/channels/\(UUID().uuidString)", token: alice.accessToken).status == 404)
                let renamed = try await harness.call(.PATCH, "/api/v1/channels/\(id)", json: .object(["name": .string("renamed")]), token: alice.accessToken)
                #expect(renamed.json?["name"] == .string("renamed"))
                #expect(try await harness.call(.PATCH, "/api/v1/channels/\(id)", json: .object(["name": .string("x")]), token: bob.accessToken).status == 403)
                _ = try await harness.call(.POST, "/api/v1/channels/\(id)/join", token: bob.accessToken)
                #expect(try await harness.call(.DELETE, "/api/v1/channels/\(id)", token: bob.accessToken).status == 403)
                #expect(try await harness.call(.DELETE, "/api/v1/channels/\(id)", token: alice.accessToken).status == 204)
                #expect(try await harness.call(.GET, "/api/v1/channels/\(id)", token: alice.accessToken).status == 404)
            }
        }

        @Test func anyoneCanJoinAndLeave() async throws {
            try await Harness.with { harness in
                let alice = try await harness.register("alice")
                let bob = try await harness.register("bob")
                let id = try await harness.createChannel(alice)
                _ = try await harness.send(alice, id, "before bob joined")
                #expect(try await harness.call(.POST, "/api/v1/channels/\(id)/join", token: bob.accessToken).status == 204)
                let history = try await harness.call(.GET, "/api/v1/channels/\(id)/messages", token: bob.accessToken)
                #expect(history.json?["messages"]?.arrayValue?.count == 1)
                let members = try await harness.call(.GET, "/api/v1/channels/\(id)/members", token: alice.accessToken)
                let roles = Dictionary(uniqueKeysWithValues: (members.json?.arrayValue ?? []).compactMap { member -> (String, String)? in
                    guard let user = member["username"]?.stringValue, let role = member["role"]?.stringValue else { return nil }
                    return (user, role)
                })
                #expect(roles == ["alice": "owner", "bob": "member"])
                #expect(try await harness.call(.POST, "/api/v1/channels/\(id)/leave", token: bob.accessToken).status == 204)
                #expect(try await harness.call(.GET, "/api/v1/channels/\(id)/members", token: bob.accessToken).status == 403)
                #expect(try await harness.call(.POST, "/api/v1/channels/\(UUID().uuidString)/join", token: bob.accessToken).status == 404)
            }
        }

        @Test func addMemberSendsChannelNewToTheAddedUserOnly() async throws {
            try await Harness.with { harness in
                let alice = try await harness.register("alice")
                let bob = try await harness.register("bob")
                let carol = try await harness.register("carol")
                let id = try await harness.createChannel(alice)
                _ = try await harness.call(.POST, "/api/v1/channels/\(id)/join", token: carol.accessToken)
                let aliceSocket = try await harness.connect(alice)
                let bobSocket = try await harness.connect(bob)
                let added = try await harness.call(.POST, "/api/v1/channels/\(id)/members", json: .object(["user_id": .string(bob.userID)]), token: alice.accessToken)
                #expect(added.status == 201)
                #expect(added.json?["user_id"] == .string(bob.userID))
                #expect(added.json?["role"] == .string("member"))
                #expect(added.json?["is_local"] == .bool(true))
                let event = await bobSocket.next(type: "channel.new")
                #expect(event?["channel"]?["id"]?.stringValue == id)
                #expect(await aliceSocket.next(type: "channel.new", timeout: .milliseconds(300)) == nil)
                let again = try await harness.call(.POST, "/api/v1/channels/\(id)/members", json: .object(["user_id": .string(bob.userID)]), token: alice.accessToken)
                #expect(again.status == 409)
                let nobody = try await harness.call(.POST, "/api/v1/channels/\(id)/members", json: .object(["user_id": .string(UUID().uuidString)]), token: alice.accessToken)
                #expect(nobody.status == 404)
                await aliceSocket.close()
                await bobSocket.close()
            }
        }

        @Test func directMessages() async throws {
            try await Harness.with { harness in
                let alice = try await harness.register("alice")
                let bob = try await harness.register("bob")
                let carol = try await harness.register("carol")
                let aliceSocket = try await harness.connect(alice)
                let bobSocket = try await harness.connect(bob)
                let first = try await harness.call(.POST, "/api/v1/channels/dm", json: .object(["user_id": .string(bob.userID)]), token: alice.accessToken)
                #expect(first.status == 201)
                #expect(first.json?["is_dm"] == .bool(true))
                #expect(first.json?["encryption_type"] == .string("x3dh"))
                let id = try #require(first.json?["id"]?.stringValue)
                #expect(await aliceSocket.next(type: "channel.new")?["channel"]?["id"]?.stringValue == id)
                #expect(await bobSocket.next(type: "channel.new")?["channel"]?["id"]?.stringValue == id)
                let second = try await harness.call(.POST, "/api/v1/channels/dm", json: .object(["user_id": .string(alice.userID)]), token: bob.accessToken)
                #expect(second.status == 201)
                #expect(second.json?["id"]?.stringValue == id)
                #expect(await bobSocket.next(type: "channel.new", timeout: .milliseconds(300)) == nil, "an existing DM sends no event")
                let addToDM = try await harness.call(.POST, "/api/v1/channels/\(id)/members", json: .object(["user_id": .string(carol.userID)]), token: alice.accessToken)
                #expect(addToDM.status == 400)
                let withSelf = try await harness.call(.POST, "/api/v1/channels/dm", json: .object(["user_id": .string(alice.userID)]), token: alice.accessToken)
                #expect(withSelf.status == 500)
                #expect(withSelf.json == nil)
                let unknown = try await harness.call(.POST, "/api/v1/channels/dm", json: .object(["user_id": .string(UUID().uuidString)]), token: alice.accessToken)
                #expect(unknown.status == 404)
                // Anyone can join a DM, which then has three members.
                #expect(try await harness.call(.POST, "/api/v1/channels/\(id)/join", token: carol.accessToken).status == 204)
                #expect(try await harness.call(.GET, "/api/v1/channels/\(id)/members", token: carol.accessToken).json?.arrayValue?.count == 3)
                await aliceSocket.close()
                await bobSocket.close()
            }
        }
    }
}
