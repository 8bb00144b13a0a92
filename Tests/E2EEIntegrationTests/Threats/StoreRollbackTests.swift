import E2EECrypto
import E2EEDevServer
import E2EEKeyStore
import E2EEMessaging
import E2EETransport
import Foundation
import Testing

extension IntegrationTests {
    /// THREATS T18 mounted with the real store file: Alice's store is copied, she sends, the copy
    /// is put back, and she sends again — through the development server.
    @Suite("StoreRollback")
    struct StoreRollbackTests {
        /// Alice's store file and its key; each phase opens it, runs, and closes it again.
        struct AliceFiles {
            let directory: URL
            let key = StoreKey.random()
            var url: URL { directory.appendingPathComponent("alice.sqlite") }
            var backup: URL { directory.appendingPathComponent("backup", isDirectory: true) }
            static let suffixes = ["", "-wal", "-shm"]

            init() throws {
                directory = FileManager.default.temporaryDirectory.appendingPathComponent("e2ee-rollback-\(UUID().uuidString)", isDirectory: true)
                try FileManager.default.createDirectory(at: directory.appendingPathComponent("backup"), withIntermediateDirectories: true)
            }

            /// Copies the database and whatever side files exist (the store is closed).
            func copy() throws {
                for suffix in Self.suffixes where FileManager.default.fileExists(atPath: url.path + suffix) {
                    try FileManager.default.copyItem(atPath: url.path + suffix, toPath: backup.appendingPathComponent("alice.sqlite" + suffix).path)
                }
            }

            /// Puts the copy back in place of the current files.
            func restore() throws {
                for suffix in Self.suffixes {
                    try? FileManager.default.removeItem(atPath: url.path + suffix)
                    let saved = backup.appendingPathComponent("alice.sqlite" + suffix).path
                    if FileManager.default.fileExists(atPath: saved) { try FileManager.default.copyItem(atPath: saved, toPath: url.path + suffix) }
                }
            }
        }

        /// Opens Alice's account from her file (what the app does after a restart), runs `body`,
        /// and closes everything.
        static func withAlice(_ files: AliceFiles, _ harness: MessagingHarness,
                              configuration: AccountConfiguration = MessagingHarness.testConfiguration,
                              _ body: (Account) async throws -> Void) async throws {
            let store = try KeyStore.open(at: files.url, key: files.key)
            let alice = try await Account.open(server: try await harness.client(restoring: store), store: store, configuration: configuration)
            do {
                try await body(alice)
            } catch {
                await alice.shutdown()
                try? store.close()
                throw error
            }
            await alice.shutdown()
            try store.close()
        }

        /// Alice (file store) and Bob share a group; Alice sends, her store is copied, the copy's
        /// later self sends, and the copy is put back: the state a restore from backup leaves.
        /// Returns Bob, the group and Alice's device id; Alice's files are closed.
        private func sendFromACopyThenRestore(_ files: AliceFiles, _ harness: MessagingHarness) async throws -> (Account, ChatChannel, DeviceID) {
            let bob = try await harness.register("bob")
            let firstStore = try KeyStore.open(at: files.url, key: files.key)
            let alice = try await harness.register("alice", store: firstStore)
            let group = try await alice.createGroup(name: "team", members: [bob.userID])
            try await harness.accept(group, on: [bob])
            try await alice.send(text: "before the copy", to: group.id)
            await alice.waitForOutbox()
            let aliceDevice = alice.deviceID
            await alice.shutdown()
            try firstStore.close()

            try files.copy()
            try await Self.withAlice(files, harness) { alice in
                try await alice.send(text: "sent by the later copy", to: group.id)
                await alice.waitForOutbox()
            }
            try files.restore()
            return (bob, group, aliceDevice)
        }

        /// The group envelopes `device` posted among `messages`, in order.
        static func groupEnvelopes(in messages: [ServerMessage], from device: DeviceID) throws -> [GroupEnvelope] {
            try messages.filter { $0.senderDeviceID == device && $0.contentType == "e2ee.group" }.map { message -> GroupEnvelope in
                guard case .group(let envelope) = try envelope(of: message) else { throw ProtocolError.malformed(.groupEnvelope, reason: "not a group envelope") }
                return envelope
            }
        }

        /// Expects `device`'s three group envelopes among `messages` each at its own
        /// (key_id, iteration), the last under a new sender key; returns them in order.
        static func expectThreeGroupSendsWithoutReuse(in messages: [ServerMessage], from device: DeviceID) throws -> [GroupEnvelope] {
            let groups = try groupEnvelopes(in: messages, from: device)
            #expect(groups.count == 3)
            let positions = groups.map { "\($0.keyID)/\($0.iteration)" }
            #expect(Set(positions).count == groups.count, "group (key_id, iteration) reused: \(positions)")
            #expect(groups.last?.keyID != groups.first?.keyID, "a new sender key after the restore")
            return groups
        }

        @Test("T18: after the store is restored from a copy, the next send uses new keys: distinct (key_id, iteration), no reuse, Bob reads all")
        func restoredStoreNeverReusesKeyAndNonce() async throws {
            let files = try AliceFiles()
            defer { try? FileManager.default.removeItem(at: files.directory) }
            try await MessagingHarness.with { harness in
                let (bob, group, aliceDevice) = try await sendFromACopyThenRestore(files, harness)
                try await Self.withAlice(files, harness) { alice in
                    let events = alice.events()
                    try await alice.send(text: "sent after the restore", to: group.id)
                    await alice.waitForOutbox()
                    #expect(await firstEvent(in: events) { if case .rollbackDetected = $0 { true } else { false } } != nil)
                    #expect(try await alice.store.rollbackDetectedAt() == nil, "keys renewed, mark cleared")
                }

                // On the wire: every group envelope of Alice's device has its own (key_id, iteration).
                let onServer = try await harness.serverMessages(group.id, as: try await harness.reader(of: bob))
                let groups = try Self.expectThreeGroupSendsWithoutReuse(in: onServer, from: aliceDevice)
                // The send after the restore uses a new sender key, from its first iteration.
                #expect(groups.last?.iteration == 0)

                // Pairwise too: no ratchet (key, counter) — hence no message key and nonce — twice
                // among the key distributions Bob's device got; the last one came over a new session.
                let skds = try onServer.filter { $0.senderDeviceID == aliceDevice && $0.contentType == "e2ee.skd" }.map { message -> SKDEnvelope in
                    guard case .senderKeyDistribution(let envelope) = try envelope(of: message) else { throw ProtocolError.malformed(.skdEnvelope, reason: "not an SKD") }
                    return envelope
                }
                let toBob = skds.flatMap { $0.recipients.filter { $0.recipientDevice.text == bob.deviceID.rawValue }.map(\.pairwiseMessage) }
                #expect(toBob.count == 2)
                let headers = toBob.map(Self.ratchetPosition)
                #expect(Set(headers).count == headers.count, "pairwise ratchet position reused")
                #expect(toBob.last?.first == 0x02, "a new session (prekey message) after the restore")

                // Bob reads every message; none is lost as a duplicate iteration.
                try await bob.sync()
                let timeline = try await bob.timeline(channelID: group.id)
                for text in ["before the copy", "sent by the later copy", "sent after the restore"] {
                    #expect(timeline.contains { $0.text == text }, "Bob reads \(text)")
                }
                #expect(!timeline.contains { if case .undecryptable = $0.state { true } else { false } })
            }
        }

        @Test("T18: a message queued while the server was unreachable after a restore is encrypted only after the catch-up found the rollback")
        func draftQueuedOfflineAfterRestoreUsesRenewedKeys() async throws {
            let files = try AliceFiles()
            defer { try? FileManager.default.removeItem(at: files.directory) }
            try await MessagingHarness.with { harness in
                let (bob, group, aliceDevice) = try await sendFromACopyThenRestore(files, harness)
                try await Self.withAlice(files, harness) { alice in
                    // The server does not answer: the pre-send catch-up cannot run, so the text
                    // waits unencrypted (queued), never encrypted from the restored state.
                    await harness.server.faults.dropNextRequests(1_000)
                    let entry = try await alice.send(text: "queued after the restore", to: group.id)
                    #expect(entry.state == .queued)
                    #expect(try await alice.outboxEntries().first { $0.localID == entry.localID }?.isWaitingToBeEncrypted == true,
                            "nothing encrypted before the catch-up")
                    await harness.server.faults.reset()
                    try await alice.resumeOutbox()
                    await alice.waitForOutbox()
                    #expect(try await alice.outboxEntries().isEmpty)
                    #expect(try await alice.store.rollbackDetectedAt() == nil, "keys renewed, mark cleared")
                }

                let onServer = try await harness.serverMessages(group.id, as: try await harness.reader(of: bob))
                _ = try Self.expectThreeGroupSendsWithoutReuse(in: onServer, from: aliceDevice)
                try await bob.sync()
                let timeline = try await bob.timeline(channelID: group.id)
                for text in ["before the copy", "sent by the later copy", "queued after the restore"] {
                    #expect(timeline.contains { $0.text == text }, "Bob reads \(text)")
                }
            }
        }

        /// The ratchet public key and message number of a pairwise message (normal or prekey).
        static func ratchetPosition(_ message: [UInt8]) -> String {
            let normal = message.first == 0x02 ? Array(message.dropFirst(1 + 65 + 32 + 4 + 4)) : message
            guard normal.count > 41 else { return "short" }
            return normal[1..<33].map { String(format: "%02x", $0) }.joined() + "/" + normal[37..<41].map { String($0) }.joined(separator: ".")
        }
    }
}
