import E2EEDevServer
import E2EEKeyStore
import E2EEMessaging
import E2EETransport
import Foundation
import Testing

extension IntegrationTests {
    /// One URL to a ready account, as an app sets up: `ChatServer` registers and logs in with
    /// keys published, reopens a real store file, connects at the derived WebSocket address,
    /// and finds users by name.
    @Suite("Server setup")
    struct ServerSetupTests {
        @Test("register and login from one URL leave accounts that can be written to at once; the file reopens to the same account, and only on its own server")
        func oneURLToReadyAccounts() async throws {
            try await MessagingHarness.with { harness in
                let folder = FileManager.default.temporaryDirectory.appendingPathComponent("setup-\(UUID().uuidString)")
                try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
                defer { try? FileManager.default.removeItem(at: folder) }
                let server = try ChatServer(url: harness.server.baseURL + "/", sleep: { _ in })
                #expect(server.address.baseURL == harness.server.baseURL)
                #expect(server.address.webSocketURL == harness.server.webSocketURL)

                let key = SecretBytes.random(count: 32)
                let aliceFile = folder.appendingPathComponent("alice.sqlite")
                let aliceStore = try KeyStore.open(at: aliceFile, key: StoreKey(key))
                #expect(try await server.open(store: aliceStore) == nil, "a new store holds no account")
                let alice = try await server.register(username: "alice", password: "password123", deviceName: "phone", store: aliceStore)
                #expect(try await alice.keyStatus().serverOneTimePrekeys ?? 0 > 0, "keys are published by register itself")
                let bob = try await server.register(username: "bob", password: "password123", deviceName: "phone", store: KeyStore.inMemory())
                let bobLaptop = try await server.login(username: "bob", password: "password123", deviceName: "laptop", store: KeyStore.inMemory())

                let received = bobLaptop.events()
                await bobLaptop.connect(to: server)
                let connected = await firstEvent(in: received) { if case .connection(.connected) = $0 { true } else { false } }
                #expect(connected != nil, "no socket at the derived WebSocket address")

                // No bootstrapKeys() anywhere: Alice writes to both of Bob's devices at once.
                let dm = try await alice.openDirectMessage(with: bob.userID)
                _ = try await bob.openDirectMessage(with: alice.userID)
                _ = try await bobLaptop.openDirectMessage(with: alice.userID)
                _ = try await alice.send(text: "hello from one URL", to: dm.id)
                await alice.waitForOutbox()
                try await bob.sync()
                #expect(try await bob.timeline(channelID: dm.id).compactMap(\.text) == ["hello from one URL"])
                let onLaptop = await firstEvent(in: received) { $0.timelineChanges.contains { $0.kind == .inserted } }
                #expect(onLaptop != nil)
                #expect(try await bobLaptop.timeline(channelID: dm.id).compactMap(\.text) == ["hello from one URL"])
                await bobLaptop.shutdown()

                // The next launch: the same file opens to the same account, its history kept.
                await alice.shutdown()
                try aliceStore.close()
                let reopenedStore = try KeyStore.open(at: aliceFile, key: StoreKey(key))
                let reopened = try #require(try await server.open(store: reopenedStore))
                #expect(reopened.deviceID == alice.deviceID)
                #expect(try await reopened.timeline(channelID: dm.id).compactMap(\.text) == ["hello from one URL"])
                await reopened.shutdown()

                // A store is bound to the server it was registered on.
                let elsewhere = try ChatServer(url: "http://127.0.0.1:1")
                await #expect(throws: ServerSetupError.storeBelongsToAnotherServer(storedURL: harness.server.baseURL)) {
                    _ = try await elsewhere.open(store: reopenedStore)
                }
                try reopenedStore.close()
            }
        }

        @Test("a user is found by name, exactly, even among more than a search page of similar names; an unknown name is nil")
        func userLookupByName() async throws {
            try await MessagingHarness.with { harness in
                let alice = try await harness.register("alice")
                let bob = try await harness.register("bob")
                #expect(try await alice.user(named: "bob")?.id == bob.userID)
                #expect(try await alice.user(named: " bob ")?.id == bob.userID)
                #expect(try await alice.user(named: "nobody") == nil)
                #expect(try await alice.user(named: "") == nil)
                // 21 users whose names contain "carol" and sort before it: the search's 20 do not
                // hold "carol" itself, which the exact lookup then finds.
                let http = HTTPChatServer(baseURL: harness.server.baseURL, session: AuthSession(keyStore: nil, serverURL: harness.server.baseURL))
                for index in 0..<21 {
                    _ = try await http.register(username: "acarol\(String(format: "%02d", index))", password: "password123", deviceName: "p")
                }
                let carol = try await harness.register("carol")
                #expect(try await alice.user(named: "carol")?.id == carol.userID)
                #expect(try await alice.user(named: "carol")?.username == "carol")
            }
        }

        @Test("a server URL is http(s)://host[:port]; the WebSocket address follows its scheme, host and port")
        func addresses() throws {
            #expect(try ServerAddress("https://chat.example.org/api/v1").webSocketURL == "wss://chat.example.org/ws")
            #expect(try ServerAddress("HTTP://127.0.0.1:8000/").baseURL == "http://127.0.0.1:8000")
            #expect(try ServerAddress("http://[::1]:8000").webSocketURL == "ws://[::1]:8000/ws")
            #expect(throws: ServerSetupError.notHTTP) { try ServerAddress("ws://host") }
            #expect(throws: ServerSetupError.notHTTP) { try ServerAddress("host:8000") }
            #expect(throws: ServerSetupError.missingHost) { try ServerAddress("http://") }
            #expect(throws: ServerSetupError.unexpectedURLParts) { try ServerAddress("http://host/chat") }
            #expect(throws: ServerSetupError.unexpectedURLParts) { try ServerAddress("https://user:secret@host") }
            #expect(throws: ServerSetupError.unexpectedURLParts) { try ServerAddress("https://host?x=1") }
        }
    }
}
