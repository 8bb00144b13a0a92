import E2EECrypto
import E2EEDevServer
import E2EEKeyStore
import E2EEMessaging
import E2EETestSupport
import Foundation
import Testing

extension IntegrationTests {
    /// The "Getting started" article's code (GettingStartedExample.swift), run as an app would
    /// run it against the development server, and the article checked against that code.
    @Suite("Getting started")
    struct GettingStartedTests {
        /// The article's location in the repository.
        static let article = RepositoryPaths.root.appendingPathComponent("Sources/E2EEMessaging/E2EEMessaging.docc/GettingStarted.md")
        /// The example's location in the repository.
        static let example = RepositoryPaths.root.appendingPathComponent("Tests/E2EEIntegrationTests/GettingStarted/GettingStartedExample.swift")

        @Test("every Swift block of the article is a verbatim excerpt of the tested example")
        func articleMatchesExample() throws {
            let article = try String(contentsOf: Self.article, encoding: .utf8)
            let example = try String(contentsOf: Self.example, encoding: .utf8)
            let blocks = Self.swiftBlocks(of: article)
            #expect(blocks.count >= 4)
            for block in blocks {
                #expect(example.contains(block), "not in GettingStartedExample.swift:\n\(block)")
            }
        }

        @Test("two accounts in one process: register, connect, send, receive, background, foreground, reopen")
        func gettingStartedRuns() async throws {
            let server = try await DevServer.start(configuration: .testing())
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("getting-started-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: folder) }
            var sessions: [ChatSession] = []
            do {
                // What each account's keychain item holds: 32 random bytes, made once.
                let keys = ["alice": SecretBytes.random(count: 32), "bob": SecretBytes.random(count: 32)]
                let keychainKey = { (username: String) in keys[username] ?? SecretBytes.random(count: 32) }
                sessions = try await startAll([("alice", "password-alice"), ("bob", "password-bob")], serverURL: server.baseURL,
                                              folder: folder, keychainKey: keychainKey)
                try #require(sessions.count == 2)
                let (alice, bob) = (sessions[0], sessions[1])

                let shown = Watched<[String]>([])
                let events = bob.account.events()  // subscribed before connecting: nothing is missed
                let presenting = Task { try await present(events, of: bob) { item in shown.update { $0.append(item.text ?? "") } } }
                defer { presenting.cancel() }
                await alice.connect()
                await bob.connect()

                // Bob's app opens the conversation with Alice: a DM it did not open would be a
                // request, its messages waiting until he accepts (docs/spec/protocol.md §5.9).
                _ = try await bob.account.openDirectMessage(with: alice.account.userID)
                // Alice's conversation screen, bound to the channel's timeline updates.
                let aliceDM = try await alice.account.openDirectMessage(with: bob.account.userID)
                let rendered = Watched<[TimelineItem]>([])
                let observing = Task { try await observeConversation(aliceDM.id, of: alice) { rows in rendered.update { $0 = rows } } }
                defer { observing.cancel() }
                let first = try await sendDirectMessage("Hi Bob", to: "bob", from: alice)
                #expect(first.state == .queued)
                #expect(await shown.wait { $0.contains("Hi Bob") }, "bob never saw the first message")
                #expect(await rendered.wait { $0.contains { !$0.isLocalEcho && $0.localID == first.localID } },
                        "alice's screen never showed her posted message: \(rendered.value.map(\.text))")
                #expect(rendered.value.compactMap(\.text) == ["Hi Bob"], "the echo was replaced, not doubled")

                await bob.appDidEnterBackground()
                _ = try await sendDirectMessage("while you were away", to: "bob", from: alice)
                await alice.account.waitForOutbox()
                await bob.appWillEnterForeground()
                #expect(await shown.wait { $0.contains("while you were away") }, "the foreground catch-up did not bring the second message")
                #expect(shown.value.filter { $0 == "Hi Bob" }.count == 1, "a message was shown twice: \(shown.value)")

                // The next launch: the same store file, the account it holds, the history it kept.
                try await bob.close()
                sessions.removeAll { $0.account.deviceID == bob.account.deviceID }
                let reopened = try await ChatSession.start(serverURL: server.baseURL, storeURL: folder.appendingPathComponent("bob.sqlite"),
                                                           keychainKey: keychainKey("bob"), username: "bob", password: "password-bob")
                sessions.append(reopened)
                #expect(reopened.account.deviceID == bob.account.deviceID)
                let dm = try await reopened.account.openDirectMessage(with: alice.account.userID)
                let texts = try await reopened.account.timeline(channelID: dm.id).compactMap(\.text)
                #expect(texts == ["Hi Bob", "while you were away"])
                let reply = try await sendDirectMessage("back again", to: "alice", from: reopened)
                await reopened.account.waitForOutbox()
                let delivered = try await reopened.account.outboxEntries(states: Set(OutboxState.allCases)).first { $0.localID == reply.localID }
                #expect(delivered?.serverMessageID != nil, "the reopened account could not send: \(String(describing: delivered?.lastError))")

                // Bob signs in on a laptop: Alice's next message holds it; her approval screen
                // shows the number Bob's phone sees once the laptop counts; she approves.
                let laptop = try await addDevice(serverURL: server.baseURL, storeURL: folder.appendingPathComponent("bob-laptop.sqlite"),
                                                 keychainKey: SecretBytes.random(count: 32), username: "bob", password: "password-bob",
                                                 deviceName: "laptop")
                sessions.append(laptop)
                _ = try await laptop.account.openDirectMessage(with: alice.account.userID)
                let held = try await sendDirectMessage("does your laptop read this?", to: "bob", from: alice)
                #expect(held.recipients.held.map(\.deviceID) == [laptop.account.deviceID])
                let reviews = try await reviewHeldDevices(of: bob.account.userID, in: alice)
                #expect(reviews.map(\.device.device.deviceID) == [laptop.account.deviceID])
                let review = try #require(reviews.first)
                #expect(review.numberIfApproved != (try await alice.account.safetyNumber(with: bob.account.userID)),
                        "the number changes when the laptop counts")
                try await approve(review, in: alice)
                #expect(review.numberIfApproved == (try await alice.account.safetyNumber(with: bob.account.userID)))
                _ = try await sendDirectMessage("now it does", to: "bob", from: alice)
                await alice.account.waitForOutbox()
                try await laptop.account.sync()
                let onLaptop = try await laptop.account.timeline(channelID: dm.id)
                #expect(onLaptop.compactMap { $0.state == .decrypted ? $0.text : nil } == ["now it does"])
                #expect(onLaptop.contains { $0.state == .sentBeforeThisDevice })
            } catch {
                for session in sessions { try? await session.close() }
                await server.shutdown()
                throw error
            }
            for session in sessions { try? await session.close() }
            await server.shutdown()
        }

        /// The bodies of the ```swift fenced blocks of a Markdown text.
        static func swiftBlocks(of markdown: String) -> [String] {
            var blocks: [String] = []
            var current: [Substring]?
            for line in markdown.split(separator: "\n", omittingEmptySubsequences: false) {
                let fence = line.trimmingCharacters(in: .whitespaces)
                if let lines = current {
                    if fence == "```" {
                        blocks.append(lines.joined(separator: "\n"))
                        current = nil
                    } else {
                        current = lines + [line]
                    }
                } else if fence == "```swift" {
                    current = []
                }
            }
            return blocks
        }
    }
}
