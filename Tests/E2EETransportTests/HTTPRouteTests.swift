import E2EEDevServer
import E2EEMessaging
import E2EETransport
import NIOCore
import Testing

extension TransportTests {
    @Suite("HTTP routes")
    struct HTTPRouteTests {
        @Test func authRoutesAndTheirErrors() async throws {
            try await TransportHarness.with { harness in
                let (alice, tokens) = try await harness.registered("alice")
                #expect(tokens.tokenType == "bearer")
                #expect(try await alice.currentUser().id == tokens.userID)
                let other = harness.client()
                #expect(await errorKind { try await other.register(username: "alice", password: "password123", deviceName: "x") } == "conflict")
                #expect(await errorKind { try await other.register(username: "a", password: "password123", deviceName: "x") } == "validation")
                #expect(await errorKind { try await other.login(username: "alice", password: "wrong-password", deviceName: "x") } == "unauthenticated")
                let second = try await other.login(username: "alice", password: "password123", deviceName: "tablet")
                #expect(second.deviceID != tokens.deviceID)
                try await harness.server.setBanned(username: "alice", true)
                #expect(await errorKind { try await harness.client().login(username: "alice", password: "password123", deviceName: "y") } == "forbidden")
                try await harness.server.setBanned(username: "alice", false)
                #expect(try await alice.webSocketTicket().isEmpty == false)
                try await alice.logout()
                #expect(await alice.session.isLoggedIn == false)
                await expectServerError(.notLoggedIn) { try await alice.currentUser() }
                try await other.logoutAll()
                await expectServerError(.notLoggedIn) { try await other.channels() }
            }
        }

        @Test func userAndKeyRoutes() async throws {
            try await TransportHarness.with { harness in
                let (alice, aliceTokens) = try await harness.registered("alice")
                let (bob, bobTokens) = try await harness.registered("bob")
                #expect(try await alice.user(id: bobTokens.userID).username == "bob")
                #expect(try await alice.searchUsers(query: "bo").map(\.username) == ["bob"])
                #expect(try await alice.lookupUser(identity: "bob@localhost").id == bobTokens.userID)
                #expect(await errorKind { try await alice.lookupUser(identity: "bob@elsewhere.example") } == "notFound")
                #expect(await errorKind { try await alice.user(id: "00000000-0000-0000-0000-000000000000") } == "notFound")
                #expect(try await alice.bundles(userID: bobTokens.userID).isEmpty)
                #expect(await errorKind { try await alice.bundle(deviceID: bobTokens.deviceID) } == "notFound")
                #expect(await errorKind { try await alice.addOneTimePreKeys(deviceID: aliceTokens.deviceID, keys: ["k"]) } == "notFound")
                let upload = KeyBundleUpload(deviceID: bobTokens.deviceID, identityKey: "ik", signedPreKey: "spk", signedPreKeySignature: "sig", oneTimePreKeys: ["o1", "o2"])
                #expect(await errorKind { try await alice.uploadKeys(upload) } == "notFound")
                try await bob.uploadKeys(upload)
                #expect(try await bob.addOneTimePreKeys(deviceID: bobTokens.deviceID, keys: ["o3"]) == 3)
                let bundle = try await alice.bundle(deviceID: bobTokens.deviceID)
                #expect(bundle.identityKey == "ik" && bundle.oneTimePreKey == "o1" && bundle.oneTimePreKeyCount >= 2)
                #expect(try await alice.bundles(userID: bobTokens.userID).map(\.deviceID) == [bobTokens.deviceID])
                var tooLong = upload
                tooLong.identityKey = String(repeating: "k", count: 256)
                #expect(await errorKind { try await bob.uploadKeys(tooLong) } == "server")

                let channel = try await alice.createChannel(name: "g")
                try await alice.uploadSenderKey(channelID: channel.id, SenderKeyEntry(deviceID: aliceTokens.deviceID, senderKeyPublic: "pub", chainKey: "public-chain"))
                let keys = try await bob.senderKeys(channelID: channel.id)
                #expect(keys.map(\.senderKeyPublic) == ["pub"])
            }
        }

        @Test func channelRoutesAndTheirErrors() async throws {
            try await TransportHarness.with { harness in
                let (alice, aliceTokens) = try await harness.registered("alice")
                let (bob, bobTokens) = try await harness.registered("bob")
                let channel = try await alice.createChannel(name: "general")
                #expect(channel.encryptionType == "sender_keys" && !channel.isDM && channel.createdBy == aliceTokens.userID)
                #expect(try await alice.channels().map(\.id) == [channel.id])
                #expect(await errorKind { try await bob.channel(id: channel.id) } == "forbidden")
                #expect(try await alice.renameChannel(id: channel.id, name: "renamed").name == "renamed")
                try await alice.addMember(channelID: channel.id, userID: bobTokens.userID)
                #expect(await errorKind { try await alice.addMember(channelID: channel.id, userID: bobTokens.userID) } == "conflict")
                #expect(Set(try await bob.members(channelID: channel.id).map(\.username)) == ["alice", "bob"])
                #expect(await errorKind { try await bob.deleteChannel(id: channel.id) } == "forbidden")
                try await bob.leaveChannel(id: channel.id)
                try await bob.joinChannel(id: channel.id)
                let dm = try await alice.openDirectMessage(userID: bobTokens.userID)
                #expect(dm.isDM && dm.encryptionType == "x3dh")
                #expect(try await bob.openDirectMessage(userID: aliceTokens.userID).id == dm.id)
                #expect(await errorKind { try await alice.addMember(channelID: dm.id, userID: bobTokens.userID) } == "badRequest")
                #expect(await errorKind { try await alice.openDirectMessage(userID: aliceTokens.userID) } == "server")
                try await alice.deleteChannel(id: channel.id)
                #expect(await errorKind { try await alice.channel(id: channel.id) } == "notFound")
            }
        }

        @Test func messageRoutesAndTheirErrors() async throws {
            try await TransportHarness.with { harness in
                let (alice, aliceTokens) = try await harness.registered("alice")
                let (bob, _) = try await harness.registered("bob")
                let channel = try await alice.createChannel(name: "g")
                let sent = try await alice.sendMessage(channelID: channel.id, OutgoingMessage(content: "envelope", contentType: "e2ee", protocolVersion: 1, senderDeviceID: aliceTokens.deviceID))
                #expect(sent.channelID == channel.id && sent.senderDeviceID == aliceTokens.deviceID && sent.protocolVersion == 1)
                let edited = try await alice.editMessage(id: sent.id, content: "edited")
                #expect(edited.content == "edited" && edited.editedAt != nil)
                #expect(await errorKind { try await bob.messages(channelID: channel.id, before: nil, limit: 10) } == "forbidden")
                #expect(await errorKind { try await bob.editMessage(id: sent.id, content: "x") } != "success")
                #expect(await errorKind { try await alice.sendMessage(channelID: channel.id, OutgoingMessage(content: "x", contentType: String(repeating: "t", count: 33))) } == "server")
                let page = try await alice.messages(channelID: channel.id, before: nil, limit: 0)
                #expect(page.messages.map(\.id) == [sent.id])
                try await alice.deleteMessage(id: sent.id)
                #expect(try await alice.messages(channelID: channel.id, before: nil, limit: 10).messages.isEmpty)
            }
        }

        @Test func plainText5xxAndDroppedConnectionsAreTyped() async throws {
            try await TransportHarness.with { harness in
                let (alice, _) = try await harness.registered("alice")
                await harness.server.faults.failNextRequests(1, status: 503, plainText: true)
                #expect(await errorKind { try await alice.channels() } == "server")
                await harness.server.faults.failNextRequests(1, status: 500, plainText: false)
                #expect(await errorKind { try await alice.channels() } == "server")
                let unreachable = HTTPChatServer(baseURL: "http://127.0.0.1:1", session: alice.session, timeout: .seconds(1))
                #expect(await errorKind { try await unreachable.channels() } == "transport")
            }
        }
    }
}
