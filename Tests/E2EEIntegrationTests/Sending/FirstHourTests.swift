import E2EEDevServer
import E2EEKeyStore
import E2EEMessaging
import E2EETestSupport
import E2EETransport
import Foundation
import Testing

extension IntegrationTests {
    /// Issue 43 item 7: what an app meets in its first hour — safety numbers compared as users
    /// compare them, online and offline; refusals that say what to do; a shutdown after which
    /// the store can be closed.
    @Suite("First hour")
    struct FirstHourTests {
        @Test("both users' safety numbers are ==; offline the number comes from the pinned devices and says so")
        func safetyNumbersCompareByDigitsAndWorkOffline() async throws {
            try await MessagingHarness.with { harness in
                let alice = try await harness.register("alice")
                let bob = try await harness.register("bob")
                try await harness.trust([alice, bob])
                let dm = try await harness.acceptedDM(alice, bob)
                try await alice.send(text: "hello", to: dm.id)
                await alice.waitForOutbox()
                try await bob.sync()

                let fromAlice = try await alice.safetyNumber(with: bob.userID)
                let fromBob = try await bob.safetyNumber(with: alice.userID)
                #expect(fromAlice == fromBob, "the same digits on both screens compare unequal")
                #expect(Set([fromAlice, fromBob]).count == 1)
                #expect(!fromAlice.isFromPinnedDevices)

                // The server cannot be reached: both device-list reads get no answer.
                await harness.server.faults.dropNextRequests(2)
                let offline = try await alice.safetyNumber(with: bob.userID)
                #expect(offline.isFromPinnedDevices, "an offline number does not say so")
                #expect(offline == fromAlice)
                await alice.shutdown()
                await bob.shutdown()
            }
        }

        @Test("a refused accept says what the user can do (LocalizedError)")
        func refusalsSayWhatToDo() async throws {
            try await MessagingHarness.with { harness in
                let alice = try await harness.register("alice")
                let bob = try await harness.register("bob")
                let dm = try await alice.openDirectMessage(with: bob.userID)
                _ = try await bob.refreshChannels()
                do {
                    try await bob.acceptChannel(dm.id)
                    Issue.record("a DM nobody wrote in was accepted")
                } catch {
                    #expect(error as? MessagingError == .noCandidate(channelID: dm.id))
                    #expect(error.localizedDescription.contains("Wait for the other person's first message"), "\(error.localizedDescription)")
                }
                let changed = MessagingError.candidateChanged(channelID: dm.id, shown: alice.userID)
                #expect(changed.localizedDescription.contains("show the requests again"))
                await alice.shutdown()
                await bob.shutdown()
            }
        }

        @Test("shutdown returns once its catch-up ended: the store closed right after sees no write")
        func shutdownAwaitsItsWork() async throws {
            try await MessagingHarness.with { harness in
                let folder = FileManager.default.temporaryDirectory.appendingPathComponent("shutdown-\(UUID().uuidString)")
                try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
                defer { try? FileManager.default.removeItem(at: folder) }
                let store = try KeyStore.open(at: folder.appendingPathComponent("alice.sqlite"), key: StoreKey(SecretBytes.random(count: 32)))
                let box = UnreliableBox()
                let alice = try await harness.register("alice", store: store, api: { box.wrap($0) })
                let bob = try await harness.register("bob")
                try await harness.trust([alice, bob])
                let dm = try await harness.acceptedDM(bob, alice)
                try await bob.send(text: "waiting for alice", to: dm.id)
                await bob.waitForOutbox()

                let server = try #require(box.server)
                server.holdHistory(of: dm.id.rawValue)
                let failures = Watched<[String]>([])
                let shutDown = Watched(false)
                let events = alice.events()
                let watcher = Task {
                    for await event in events {
                        if case .channelSyncFailed(let failure) = event, shutDown.value { failures.update { $0.append(failure.reason) } }
                    }
                }
                await alice.connect(using: WebSocketRealtimeConnector(webSocketURL: harness.server.webSocketURL))
                #expect(await eventually(within: .seconds(20)) { server.historyReadsHeld > 0 }, "the catch-up never read the channel")

                await alice.shutdown()
                shutDown.update { $0 = true }
                try store.close()
                server.releaseHistory(of: dm.id.rawValue)
                // Whatever the shut-down account still ran would fail on the closed store now.
                #expect(!(await failures.wait(limit: .seconds(2)) { !$0.isEmpty }), "work went on after shutdown: \(failures.value)")
                watcher.cancel()
                await bob.shutdown()
            }
        }
    }
}
