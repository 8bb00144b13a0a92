import E2EECrypto
import E2EEDevServer
import E2EEMessaging
@_spi(StoreInternals) import E2EEKeyStore
import E2EETransport
import Foundation
import Testing

extension ToolTests {
    /// Issue 46's bar with real processes (docs/spec/protocol.md §11.3–§11.9): a primary's
    /// history goes to a new linked device while the primary's and the new device's `e2ee-tool`
    /// processes are each SIGKILLed twice mid-transfer, link posts are dropped (at the start, and
    /// in a soak after every restart too) and stored twice (after every restart) and a quarter of
    /// the socket events doubled. The new device ends with every message once, in the primary's
    /// order and text, the digests matched (the transfer is done on both ends) and the transfer
    /// channel deleted. 500 messages by default (one in 12 a chunk, so the kills fall between
    /// chunks); `E2EE_TRANSFER_SOAK=<n>` runs `n` in natural chunks (`Scripts/transfer-soak.sh`).
    @Suite("transfer soak")
    struct TransferSoakTests {
        /// The messages of the run: `E2EE_TRANSFER_SOAK`, else 500.
        static var count: Int { ProcessInfo.processInfo.environment["E2EE_TRANSFER_SOAK"].flatMap(Int.init) ?? 500 }
        /// Whether this is the soak (`E2EE_TRANSFER_SOAK` set).
        static var soak: Bool { ProcessInfo.processInfo.environment["E2EE_TRANSFER_SOAK"] != nil }
        /// Records per chunk: small for the default run, natural (as many as fit) for a soak.
        static var chunkRecords: String? { soak ? nil : "12" }
        /// How far (records done on the new device, of those expected) each kill waits for, and whose.
        static let kills: [(fraction: Double, primary: Bool)] = [(0.15, false), (0.35, true), (0.55, false), (0.75, true)]

        @Test("issue 46: the history transfer completes with the primary and the new device each SIGKILLed twice, link posts dropped and duplicated: each message once, in order, digests matched, channel deleted")
        func killedTwiceEachSide() async throws {
            try await ToolHarness.with { harness in
                let scene = try await Self.scene(harness, messages: Self.count)
                let faults = harness.server.faults
                await faults.seedRandomFaults(46)
                var phoneEnvironment = harness.environment()
                phoneEnvironment["E2EE_TEST_CHUNK_RECORDS"] = Self.chunkRecords
                let started = ContinuousClock.now

                var phone = try LiveToolProcess(["link", "accept", "--store", scene.phoneStore, "--history", "all", "--timeout", "1800"],
                                                environment: phoneEnvironment, in: harness.directory, typing: true)
                var laptop = try await LinkCommandTests.typeCodes(phone: phone) {
                    try LiveToolProcess(["link", "start", "--store", scene.laptop.store, "--timeout", "1800"],
                                        environment: harness.environment(), in: harness.directory, typing: true)
                }.newDevice

                // The faults start once the new device committed its first records.
                let first = await laptop.wait(limit: .seconds(120)) { (Self.progress($0)?.done ?? 0) > 0 }
                try #require(first, "the transfer started: \(laptop.output.value.summary)\n\(phone.output.value.summary)")
                await faults.duplicateEvents(probability: 0.25)
                await Self.armPostFaults(faults, dropping: 3)

                for (fraction, primary) in Self.kills {
                    let reached = await laptop.wait(limit: .seconds(1200)) { output in
                        guard let progress = Self.progress(output) else { return false }
                        return Double(progress.done) >= fraction * Double(progress.expected)
                    }
                    let seen = Self.progress(laptop.output.value)
                    try #require(reached, "the new device reached \(fraction) of the records: \(laptop.output.value.summary)")
                    try #require(seen.map { $0.done < $0.expected } == true, "killed mid-transfer, not after it: \(String(describing: seen))")
                    let victim = primary ? phone : laptop
                    victim.send(signal: SIGKILL)
                    let end = await victim.finish(limit: .seconds(30))
                    #expect(end.exit?.bySignal == true, "SIGKILLed at \(seen.map { "\($0.done)/\($0.expected)" } ?? "?"): \(end.summary)")
                    print("transfer soak: \(primary ? "primary" : "new device") SIGKILLed at \(seen.map { "\($0.done)/\($0.expected)" } ?? "?") records, after \(ContinuousClock.now - started)")
                    let restarted = try LiveToolProcess(["listen", "--json", "--store", primary ? scene.phoneStore : scene.laptop.store,
                                                         "--timeout", "1800"],
                                                        environment: primary ? phoneEnvironment : harness.environment(), in: harness.directory)
                    if primary { phone = restarted } else { laptop = restarted }
                    // After each restart the next link posts are stored twice; in a soak some are lost again too (a
                    // lost acknowledgement with nothing behind it costs a 60-second timeout, too slow for the default run).
                    await Self.armPostFaults(faults, dropping: Self.soak ? 3 : 0)
                }

                let received = await laptop.wait(limit: .seconds(1200)) { $0.objects.contains { $0["event"] as? String == "trust_transferred" } }
                let sent = await phone.wait(limit: .seconds(300)) { $0.objects.contains { $0["event"] as? String == "trust_sent" } }
                let elapsed = ContinuousClock.now - started
                await faults.duplicateEvents(false)
                let (dropped, duplicated) = (await faults.droppedPostCount, await faults.duplicatedPostCount)
                #expect(dropped >= 3 && duplicated >= 5, "the faults met link posts: \(dropped) dropped, \(duplicated) stored twice")
                for process in [laptop, phone] { process.send(signal: SIGTERM) }
                let laptopEnd = await laptop.finish(limit: .seconds(30)), phoneEnd = await phone.finish(limit: .seconds(30))
                #expect(received, "the new device finished: \(laptopEnd.summary)")
                #expect(sent, "the primary saw the last acknowledgement: \(phoneEnd.summary)")
                print("transfer soak: \(Self.count) messages, both sides killed twice, \(dropped) link posts dropped, \(duplicated) stored twice, in \(elapsed)")

                try await Self.expectDone(harness, store: scene.laptop.store, direction: "receiving")
                try await Self.expectDone(harness, store: scene.phoneStore, direction: "sending")
                let phoneRows = try await Self.rows(scene.phoneStore, channel: scene.channel)
                let laptopRows = try await Self.rows(scene.laptop.store, channel: scene.channel)
                #expect(phoneRows.count == Self.count, "setting up: the primary holds every seeded message")
                #expect(laptopRows.count == phoneRows.count, "each message once: \(laptopRows.count) of \(phoneRows.count)")
                #expect(laptopRows.map(\.id) == phoneRows.map(\.id), "the primary's messages, in its order")
                #expect(laptopRows.map(\.text) == phoneRows.map(\.text), "with the primary's texts")
                #expect(try await Self.transferChannels(harness, store: scene.laptop.store).isEmpty, "the transfer channel is deleted")
            }
        }

        /// Bob's phone (with a user key) and laptop, a DM the phone opened with Alice, and
        /// `messages` of Bob's own in it on the phone, seeded before any process opens the store.
        static func scene(_ harness: ToolHarness, messages: Int) async throws -> (phoneStore: String, laptop: ToolUser, channel: String) {
            let phoneStore = harness.storePath("bob-phone")
            let register = try await harness.tool("account", "register", "--server", harness.server.baseURL, "--username", "bob",
                                                  "--store", phoneStore, "--kdf", "interactive", "--user-key", "--json")
            guard register.status == 0 else { throw HarnessError.toolFailed(register.summary) }
            let json = try register.json()
            let (bob, phoneDevice) = (try #require(json["user_id"] as? String), try #require(json["device_id"] as? String))
            let keys = try await harness.tool("keys", "bootstrap", "--store", phoneStore)
            guard keys.status == 0 else { throw HarnessError.toolFailed(keys.summary) }
            let alice = try await harness.register("alice", bootstrap: true)
            let dm = try await harness.tool("channels", "dm", alice.userID, "--store", phoneStore, "--json")
            guard dm.status == 0, let channel = try dm.json()["id"] as? String else { throw HarnessError.toolFailed(dm.summary) }
            let laptop = try await UserKeyCommandTests.login(harness, "bob", store: "bob-laptop")
            try seed(phoneStore, messages: messages, channel: channel, user: bob, device: phoneDevice, harness: harness)
            return (phoneStore, laptop, channel)
        }

        /// Runs `HistorySeeder` (built beside the tool) on `store`.
        static func seed(_ store: String, messages: Int, channel: String, user: String, device: String, harness: ToolHarness) throws {
            guard let seeder = ToolProcess.executableURL()?.deletingLastPathComponent().appendingPathComponent("HistorySeeder"),
                  FileManager.default.isExecutableFile(atPath: seeder.path) else {
                throw HarnessError.toolFailed("HistorySeeder not found beside e2ee-tool; run swift build --build-tests")
            }
            let process = Process()
            process.executableURL = seeder
            process.arguments = [store, String(messages), channel, user, device]
            process.environment = harness.environment()
            process.standardOutput = FileHandle.nullDevice
            try process.run()
            process.waitUntilExit()
            guard process.terminationStatus == 0 else { throw HarnessError.toolFailed("HistorySeeder exited \(process.terminationStatus)") }
        }

        /// Drops the next `dropping` link posts and stores the next five twice.
        static func armPostFaults(_ faults: FaultInjector, dropping: Int) async {
            await faults.dropPosts(contentType: "e2ee.link", count: dropping)
            await faults.duplicatePosts(contentType: "e2ee.link", count: 5)
        }

        /// The newest transfer progress a process printed (`link start` on standard error,
        /// `listen --json` as `transfer` notices): records done of expected.
        static func progress(_ output: LiveToolProcess.Output) -> (done: Int, expected: Int)? {
            let text = output.stderr + "\n" + output.stdout
            guard let match = text.matches(of: /phase \d+: (\d+)\/(\d+) records/).last,
                  let done = Int(match.output.1), let expected = Int(match.output.2) else { return nil }
            return (done, expected)
        }

        /// `transfer status` on `store` shows one transfer in `direction`, done, every record held.
        static func expectDone(_ harness: ToolHarness, store: String, direction: String) async throws {
            let status = try await harness.tool("transfer", "status", "--store", store, "--json")
            let transfers = try status.json()["transfers"] as? [[String: Any]] ?? []
            let transfer = try #require(transfers.first, "\(status.summary)")
            #expect(transfers.count == 1 && transfer["direction"] as? String == direction, "\(status.summary)")
            #expect(transfer["state"] as? String == "done", "the digests matched: \(status.summary)")
            let done = transfer["records_done"] as? Int, expected = transfer["records_expected"] as? Int
            if direction == "receiving" { #expect(done != nil && done == expected, "\(status.summary)") }
        }

        /// Every message of `channel` in `store`, oldest first: server id and text.
        static func rows(_ path: String, channel: String) async throws -> [(id: String, text: String)] {
            let store = try KeyStore.open(at: URL(fileURLWithPath: path), passphrase: SecretBytes(copying: Array(ToolHarness.passphrase.utf8)))
            defer { try? store.close() }
            var rows: [(id: String, text: String)] = []
            var cursor: TimelineCursor?
            while true {
                let page = try await store.timelinePage(channelID: channel, before: cursor, limit: 1_000)
                guard let oldest = page.first else { break }
                rows = try page.map { message in
                    (message.messageID, try message.plaintext.map { try MessagePayload(json: $0).text } ?? "")
                } + rows
                cursor = oldest.cursor
            }
            return rows
        }

        /// The transfer channels the server still lists to the device of `store`.
        static func transferChannels(_ harness: ToolHarness, store path: String) async throws -> [String] {
            let store = try KeyStore.open(at: URL(fileURLWithPath: path), passphrase: SecretBytes(copying: Array(ToolHarness.passphrase.utf8)))
            defer { try? store.close() }
            let http = HTTPChatServer(baseURL: harness.server.baseURL, session: try await AuthSession.restored(from: store), sleep: { _ in })
            return try await http.channels().filter { $0.name == "e2ee-transfer" }.map(\.id.rawValue)
        }
    }
}
