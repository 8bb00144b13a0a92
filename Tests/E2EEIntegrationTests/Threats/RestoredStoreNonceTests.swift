import E2EECrypto
import E2EEDevServer
import E2EEKeyStore
import E2EEMessaging
import E2EETestSupport
import E2EETransport
import Foundation
import Testing

extension IntegrationTests {
    /// Protocol text 1.2, part A (threats T18): a restored store whose rollback the server hides
    /// — or an honest server whose channel was flooded past the catch-up window — must still
    /// never put one key and nonce on the wire twice. Mounted with a real store file, restored
    /// from a copy, against the development server.
    @Suite("Restored store: no key and nonce twice, whatever the server hides")
    struct RestoredStoreNonceTests {
        typealias Files = StoreRollbackTests.AliceFiles

        /// What Alice's device put on the wire, per kind.
        struct AliceOnTheWire {
            /// (key_id, iteration, nonce) of every group message.
            var group: [(position: String, nonce: [UInt8])] = []
            /// (ratchet key, N, nonce) of every pairwise message to Bob's device (DM entries and SKD entries).
            var pairwise: [(position: String, nonce: [UInt8])] = []
        }

        /// Alice (file store), Bob, a group and (`withDM`) a DM; Alice writes in each, her store is
        /// copied, the later copy writes in each, and the copy is put back. Returns Bob, the
        /// channels and Alice's device id; Alice's files are closed.
        private func writeFromACopyThenRestore(_ files: Files, _ harness: MessagingHarness, withDM: Bool = true) async throws
            -> (bob: Account, group: ChatChannel, dm: ChatChannel?, aliceDevice: DeviceID) {
            let bob = try await harness.register("bob")
            let firstStore = try KeyStore.open(at: files.url, key: files.key)
            let alice = try await harness.register("alice", store: firstStore)
            let group = try await alice.createGroup(name: "team", members: [bob.userID])
            try await harness.accept(group, on: [bob])
            let dm = withDM ? try await alice.openDirectMessage(with: bob.userID) : nil
            try await alice.send(text: "group: before the copy", to: group.id)
            if let dm { try await alice.send(text: "dm: before the copy", to: dm.id) }
            await alice.waitForOutbox()
            let aliceDevice = alice.deviceID
            await alice.shutdown()
            try firstStore.close()

            try files.copy()
            try await StoreRollbackTests.withAlice(files, harness) { alice in
                try await alice.send(text: "group: The merger closes on Friday, tell nobody", to: group.id)
                if let dm { try await alice.send(text: "dm: The merger closes on Friday, tell nobody", to: dm.id) }
                await alice.waitForOutbox()
            }
            try files.restore()
            return (bob, group, dm, aliceDevice)
        }

        /// Every message of `channelID` the server holds, oldest first, read as `reader`.
        private func allMessages(_ channelID: String, as reader: HTTPChatServer) async throws -> [ServerMessage] {
            var pager = MessageHistoryPager(server: reader, channelID: ChannelID(channelID), pageSize: 100)
            var pages: [[ServerMessage]] = []
            while true {
                let page = try await pager.nextPage()
                if page.isEmpty { break }
                pages.append(page)
            }
            return pages.reversed().flatMap { $0 }
        }

        /// Alice's device's group positions and the positions of its pairwise messages to `bobDevice`.
        private func onTheWire(_ messages: [ServerMessage], aliceDevice: DeviceID, bobDevice: String) throws -> AliceOnTheWire {
            var wire = AliceOnTheWire()
            for message in messages where message.senderDeviceID == aliceDevice {
                switch try envelope(of: message) {
                case .group(let group):
                    wire.group.append(("\(group.keyID)/\(group.iteration)", group.nonce))
                case .dm(let dm):
                    for entry in dm.recipients where entry.recipientDevice.text == bobDevice {
                        wire.pairwise.append(try Self.pairwisePosition(entry.pairwiseMessage))
                    }
                case .senderKeyDistribution(let skd):
                    for entry in skd.recipients where entry.recipientDevice.text == bobDevice {
                        wire.pairwise.append(try Self.pairwisePosition(entry.pairwiseMessage))
                    }
                }
            }
            return wire
        }

        /// The ratchet key and counter of a pairwise message, and its nonce.
        static func pairwisePosition(_ bytes: [UInt8]) throws -> (position: String, nonce: [UInt8]) {
            let header: MessageHeader = switch try PairwiseMessage(bytes: bytes) {
            case .normal(let message): message.header
            case .prekey(let message): message.message.header
            }
            return (Hex.encode(header.ratchetKey.rawRepresentation) + "/\(header.counter)", header.nonce)
        }

        /// No (key, nonce) pair twice: every position's nonces are distinct (a position's key is
        /// fixed by the chain, so a repeated position with a repeated nonce is a repeated key and nonce).
        static func expectNoKeyAndNonceTwice(_ entries: [(position: String, nonce: [UInt8])], _ what: String) {
            let pairs = entries.map { $0.position + "/" + Hex.encode($0.nonce) }
            #expect(Set(pairs).count == pairs.count, "\(what): a (key, nonce) pair repeats on the wire")
        }

        @Test("a server hiding the restored device's newer own rows: positions repeat, (key, nonce) never; Bob reports positionReused")
        func hiddenOwnRowsNeverRepeatKeyAndNonce() async throws {
            let files = try Files()
            defer { try? FileManager.default.removeItem(at: files.directory) }
            try await MessagingHarness.with { harness in
                let (bob, group, optionalDM, aliceDevice) = try await writeFromACopyThenRestore(files, harness)
                let dm = try #require(optionalDM)
                await harness.server.faults.hideRows(postedBy: aliceDevice.rawValue)
                try await StoreRollbackTests.withAlice(files, harness) { alice in
                    try await alice.send(text: "group: lunch at noon, usual place", to: group.id)
                    try await alice.send(text: "dm: lunch at noon, usual place", to: dm.id)
                    await alice.waitForOutbox()
                    #expect(try await alice.outboxEntries().isEmpty)
                    #expect(try await alice.store.rollbackDetectedAt() == nil, "the server hid every sign of the restore")
                }
                await harness.server.faults.reset()

                let reader = try await harness.reader(of: bob)
                let groupWire = try onTheWire(try await allMessages(group.id.rawValue, as: reader), aliceDevice: aliceDevice, bobDevice: bob.deviceID.rawValue)
                let dmWire = try onTheWire(try await allMessages(dm.id.rawValue, as: reader), aliceDevice: aliceDevice, bobDevice: bob.deviceID.rawValue)
                // The attack took place: the restored state reused chain positions...
                #expect(Set(groupWire.group.map(\.position)).count < groupWire.group.count, "a group position was used twice")
                #expect(Set(dmWire.pairwise.map(\.position)).count < dmWire.pairwise.count, "a pairwise position was used twice")
                // ...and no key and nonce ever went out twice.
                Self.expectNoKeyAndNonceTwice(groupWire.group, "group")
                Self.expectNoKeyAndNonceTwice(dmWire.pairwise, "pairwise")

                // Bob read the later copy's group message first, so the restored one at the same
                // position is refused as positionReused, and the first stays.
                try await bob.sync()
                let timeline = try await bob.timeline(channelID: group.id)
                #expect(timeline.contains { $0.text == "group: The merger closes on Friday, tell nobody" })
                #expect(timeline.contains { $0.state == .undecryptable(.positionReused) }, "\(timeline.map(\.state))")
                #expect(!timeline.contains { $0.text == "group: lunch at noon, usual place" })
            }
        }

        @Test("an honest server and 5,001 messages posted after the restored position: the catch-up reads past its limit, finds the rollback, no (key, nonce) twice")
        func floodPastTheCatchUpWindowStillFindsTheRollback() async throws {
            let files = try Files()
            defer { try? FileManager.default.removeItem(at: files.directory) }
            try await MessagingHarness.with { harness in
                // No DM: the group's own history is the only evidence of the restore.
                let (bob, group, _, aliceDevice) = try await writeFromACopyThenRestore(files, harness, withDM: false)
                // Any member can post: 5,001 messages push Alice's newer ones out of the window.
                let flooder = try await harness.reader(of: bob)
                try await withThrowingTaskGroup(of: Void.self) { tasks in
                    for lane in 0..<4 {
                        tasks.addTask {
                            for index in stride(from: lane, to: 5_001, by: 4) {
                                _ = try await flooder.sendMessage(channelID: group.id, OutgoingMessage(content: "junk \(index)"))
                            }
                        }
                    }
                    try await tasks.waitForAll()
                }
                try await StoreRollbackTests.withAlice(files, harness) { alice in
                    let events = alice.events()
                    try await alice.send(text: "group: after the flood", to: group.id)
                    await alice.waitForOutbox()
                    #expect(try await alice.outboxEntries().isEmpty)
                    #expect(await firstEvent(in: events) { if case .rollbackDetected = $0 { true } else { false } } != nil)
                    #expect(try await alice.store.rollbackDetectedAt() == nil, "keys renewed, mark cleared")
                }

                let messages = try await allMessages(group.id.rawValue, as: try await harness.reader(of: bob))
                let wire = try onTheWire(messages, aliceDevice: aliceDevice, bobDevice: bob.deviceID.rawValue)
                #expect(wire.group.count == 3)
                Self.expectNoKeyAndNonceTwice(wire.group, "group")
                #expect(Set(wire.group.map(\.position)).count == wire.group.count, "renewed keys: no position twice either")
                Self.expectNoKeyAndNonceTwice(wire.pairwise, "pairwise")
                try await bob.sync()
                #expect(try await bob.timeline(channelID: group.id).contains { $0.text == "group: after the flood" })
            }
        }

        @Test("a gap longer than the scan's bound (four catch-up limits): nothing is taken on trust, the keys are renewed before the send")
        func gapPastTheScanBoundRenewsKeys() async throws {
            let files = try Files()
            defer { try? FileManager.default.removeItem(at: files.directory) }
            try await MessagingHarness.with { harness in
                let (bob, group, _, aliceDevice) = try await writeFromACopyThenRestore(files, harness, withDM: false)
                let flooder = try await harness.reader(of: bob)
                for index in 0..<60 { _ = try await flooder.sendMessage(channelID: group.id, OutgoingMessage(content: "junk \(index)")) }
                var small = MessagingHarness.testConfiguration
                small.catchUpLimit = 10  // reads 10, then scans 40 more: the restored position is 61 back
                try await StoreRollbackTests.withAlice(files, harness, configuration: small) { alice in
                    let events = alice.events()
                    try await alice.send(text: "group: after the long gap", to: group.id)
                    await alice.waitForOutbox()
                    #expect(try await alice.outboxEntries().isEmpty)
                    #expect(await firstEvent(in: events) { if case .rollbackDetected = $0 { true } else { false } } == nil, "nothing was seen")
                    #expect(try await alice.store.rollbackDetectedAt() == nil, "keys renewed, mark cleared")
                }
                let wire = try onTheWire(try await allMessages(group.id.rawValue, as: try await harness.reader(of: bob)), aliceDevice: aliceDevice,
                                         bobDevice: bob.deviceID.rawValue)
                #expect(wire.group.count == 3)
                #expect(Set(wire.group.map(\.position)).count == wire.group.count, "renewed keys: no position twice")
                Self.expectNoKeyAndNonceTwice(wire.group, "group")
                try await bob.sync()
                #expect(try await bob.timeline(channelID: group.id).contains { $0.text == "group: after the long gap" })
            }
        }
    }
}
