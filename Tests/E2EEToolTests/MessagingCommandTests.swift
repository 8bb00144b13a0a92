import E2EEMessaging
import Foundation
import Testing

extension ToolTests {
    /// `channels`, `send`, `devices`, `safety-number` between two stores, as processes.
    @Suite("messaging")
    struct MessagingCommandTests {
        @Test("send between two stores: the server holds one e2ee.dm message from the sender's device")
        func sendDirectMessage() async throws {
            try await ToolHarness.with { harness in
                let alice = try await harness.register("alice", bootstrap: true)
                let bob = try await harness.register("bob", bootstrap: true)

                let dm = try await harness.tool("channels", "dm", bob.userID, "--store", alice.store, "--json")
                #expect(dm.status == 0, "\(dm.summary)")
                let channelID = try #require(try dm.json()["id"] as? String)
                #expect(try dm.json()["kind"] as? String == "dm")

                let send = try await harness.tool("send", channelID, "hello bob", "--store", alice.store, "--json")
                #expect(send.status == 0, "\(send.summary)")
                let json = try send.json()
                #expect(json["state"] as? String == "sent")
                #expect(json["content_type"] as? String == "e2ee.dm")
                let serverID = try #require(json["server_message_id"] as? String)

                let reader = try await harness.client(loggingInAs: "bob")
                let messages = try await reader.messages(channelID: ChannelID(channelID), before: nil, limit: 50).messages
                #expect(messages.count == 1)
                #expect(messages.first?.id.rawValue == serverID)
                #expect(messages.first?.contentType == "e2ee.dm")
                #expect(messages.first?.senderDeviceID?.rawValue == alice.deviceID)
                #expect(messages.first?.content.contains("hello") == false, "the server holds ciphertext only")

                let bobsChannels = try await harness.tool("channels", "--store", bob.store, "--json")
                #expect(bobsChannels.status == 0, "\(bobsChannels.summary)")
                let listed = try #require(try bobsChannels.json()["channels"] as? [[String: Any]])
                #expect(listed.compactMap { $0["id"] as? String } == [channelID])
            }
        }

        @Test("delete posts a tombstone: the receiver's history shows the message deleted; another user's message exits 1")
        func deleteThroughTombstone() async throws {
            try await ToolHarness.with { harness in
                let alice = try await harness.register("alice", bootstrap: true)
                let bob = try await harness.register("bob", bootstrap: true)
                let dm = try await harness.tool("channels", "dm", bob.userID, "--store", alice.store, "--json")
                let channelID = try #require(try dm.json()["id"] as? String)
                _ = try await harness.tool("channels", "dm", alice.userID, "--store", bob.store)
                let send = try await harness.tool("send", channelID, "oops", "--store", alice.store, "--json")
                let serverID = try #require(try send.json()["server_message_id"] as? String)
                let seen = try await harness.tool("history", channelID, "--store", bob.store)
                #expect(seen.stdout.contains("oops"), "\(seen.summary)")

                let notOurs = try await harness.tool("delete", serverID, "--store", bob.store)
                #expect(notOurs.status == 1, "\(notOurs.summary)")
                let delete = try await harness.tool("delete", serverID, "--store", alice.store, "--json")
                #expect(delete.status == 0, "\(delete.summary)")
                #expect(try delete.json()["state"] as? String == "sent")
                let after = try await harness.tool("history", channelID, "--store", bob.store, "--json")
                #expect(after.status == 0, "\(after.summary)")
                #expect(!after.stdout.contains("oops"), "\(after.summary)")
                #expect(after.stdout.contains("deleted"), "\(after.summary)")
            }
        }

        @Test("send to an unknown channel exits 6; text without a channel exits 2")
        func sendFailures() async throws {
            try await ToolHarness.with { harness in
                let alice = try await harness.register("alice", bootstrap: true)
                let unknown = try await harness.tool("send", UUID().uuidString.lowercased(), "hi", "--store", alice.store)
                #expect(unknown.status == 6, "\(unknown.summary)")
                #expect(unknown.stderr.contains("e2ee-tool: error:"), "\(unknown.summary)")
                let missing = try await harness.tool("send", "--store", alice.store)
                #expect(missing.status == 2, "\(missing.summary)")
            }
        }

        @Test("devices and safety-number: the other user's device and 60 digits both sides agree on")
        func identities() async throws {
            try await ToolHarness.with { harness in
                let alice = try await harness.register("alice", bootstrap: true)
                let bob = try await harness.register("bob", bootstrap: true)
                let devices = try await harness.tool("devices", bob.userID, "--store", alice.store, "--json")
                #expect(devices.status == 0, "\(devices.summary)")
                let listed = try #require(try devices.json()["devices"] as? [[String: Any]])
                #expect(listed.compactMap { $0["device_id"] as? String } == [bob.deviceID])
                #expect(try (devices.json()["identity_changes"] as? [Any])?.isEmpty == true)

                let ours = try await harness.tool("safety-number", bob.userID, "--store", alice.store, "--json")
                let theirs = try await harness.tool("safety-number", alice.userID, "--store", bob.store, "--json")
                #expect(ours.status == 0 && theirs.status == 0, "\(ours.summary)\n\(theirs.summary)")
                let number = try #require(try ours.json()["safety_number"] as? String)
                #expect(number.filter(\.isNumber).count == 60)
                #expect(number.split(separator: " ").count == 12, "12 groups of five digits")
                #expect(try theirs.json()["safety_number"] as? String == number)
            }
        }
    }
}
