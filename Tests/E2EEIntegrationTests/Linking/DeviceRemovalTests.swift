import E2EECrypto
import E2EEDevServer
@_spi(StoreInternals) import E2EEKeyStore
@testable import E2EEMessaging
import Foundation
import Synchronization
import Testing

extension IntegrationTests {
    /// docs/spec/protocol.md §10.14 against the development server: Bob's primary removes one of
    /// his linked devices — one save of the file at a new epoch, then its own record, the
    /// server's delete and a recert to each kept device, in that order, resumed until done —
    /// and attacks K24–K26 of the linking proposal.
    @Suite("Removing a device")
    struct DeviceRemovalTests {
        static let day: Int64 = 86_400

        @Test("K24: a removal whose republish fails posts nothing and deletes nothing; resumed at start-up: own record at epoch 2, delete, then the recert")
        func removalInOrderAndResumed() async throws {
            try await MessagingHarness.with { harness in
                var scene = try await OwnUserKeyScene.make(harness)
                defer { scene.cleanUp() }
                let laptop = try await harness.login("bob", configuration: MessagingHarness.recipientConfiguration)
                try await LinkCeremonyIntegrationTests.link(laptop, to: scene.bob)
                let tablet = try await harness.login("bob", deviceName: "tablet", configuration: MessagingHarness.recipientConfiguration)
                let bobLog = EventLog(scene.bob)
                try await LinkCeremonyIntegrationTests.link(tablet, to: scene.bob)
                #expect(Set(try scene.fileContents().kept) == [scene.bob.deviceID.rawValue, laptop.deviceID.rawValue, tablet.deviceID.rawValue])
                // The tablet's transfer ends first: its link posts are not the removal's.
                try await LinkCeremonyIntegrationTests.pump(scene.bob, tablet, until: bobLog) { $0 == .linking(.trustSent(to: tablet.deviceID)) }
                await scene.bob.waitForOutbox()

                // The primary's upload fails: the removal is saved, and nothing else happens.
                let failing = RemovalRecorder(try await harness.client(restoring: scene.bob.store))
                await scene.bob.shutdown()
                scene.bob = try await Account.open(server: failing, store: scene.bob.store, configuration: scene.configuration())
                failing.reset()
                failing.failUploads(1)
                await #expect(throws: ServerError.self) { try await scene.bob.removeDevice(laptop.deviceID) }
                let saved = try scene.fileContents()
                #expect(saved.epoch == 2 && saved.removal?.deviceID == laptop.deviceID.rawValue && saved.removal?.stage == .republish)
                #expect(!saved.kept.contains(laptop.deviceID.rawValue) && saved.removed == [laptop.deviceID.rawValue])
                #expect(try await scene.listedCertificate()?.epoch == 1, "published before the step that failed")
                #expect(failing.calls.isEmpty, "a delete or a recert went out before the own record: \(failing.calls)")
                #expect(try await Self.listed(laptop, reader: scene.alice, harness: harness), "the laptop was deleted before the own record")

                // Start-up resumes it, in order.
                let recording = RemovalRecorder(try await harness.client(restoring: scene.bob.store))
                await scene.bob.shutdown()
                scene.bob = try await Account.open(server: recording, store: scene.bob.store, configuration: scene.configuration())
                await scene.bob.waitForOutbox()
                let calls = recording.calls
                let keys = try #require(calls.firstIndex(of: "keys")), delete = try #require(calls.firstIndex(of: "delete"))
                let recert = try #require(calls.firstIndex(of: "link"), "no recert posted: \(calls)")
                #expect(keys < delete && delete < recert, "\(calls)")
                #expect(try scene.fileContents().removal == nil)
                #expect(try await scene.listedCertificate()?.epoch == 2)
                #expect(try await !Self.listed(laptop, reader: scene.alice, harness: harness), "the removed laptop is still listed")

                // The tablet adopts its epoch-2 certificate; Alice sends to the phone and the tablet only.
                let adopted = await eventually(within: .seconds(10)) {
                    try? await tablet.sync()
                    return (try? await KeptRenewalTests.listedCertificate(of: tablet, harness: harness))?.epoch == 2
                }
                #expect(adopted, "the tablet never adopted its recert")
                let sent = try await scene.aliceSends("after the removal")
                #expect(Set(sent.recipients ?? []) == [scene.bob.deviceID, tablet.deviceID])
                await tablet.shutdown()
                await laptop.shutdown()
                await scene.bob.shutdown()
                await scene.alice.shutdown()
            }
        }

        @Test("K24: removing a new device whose ack(0) is held: the ack released later keeps nothing, nothing is renewed for it")
        func removedBeforeItsAck() async throws {
            try await MessagingHarness.with { harness in
                var scene = try await OwnUserKeyScene.make(harness)
                defer { scene.cleanUp() }
                // The server's delete fails at first, so that the held ack still reaches the primary.
                let recorder = RemovalRecorder(try await harness.client(restoring: scene.bob.store))
                await scene.bob.shutdown()
                scene.bob = try await Account.open(server: recorder, store: scene.bob.store, configuration: scene.configuration())
                let newDevice = try await harness.login("bob", configuration: MessagingHarness.recipientConfiguration)
                let primarySteps = try await Self.linkHoldingAck(newDevice, to: scene.bob, harness: harness)
                recorder.failDeletes(1)
                await #expect(throws: ServerError.self) { try await scene.bob.removeDevice(newDevice.deviceID) }
                #expect(try scene.fileContents().removal?.stage == .deleteDevice)
                #expect(try await harness.server.faults.releasePosts().count == 1)
                try await scene.bob.sync()
                let end = try await primarySteps.next(until: nil)
                #expect(end == .cancelled(.refusedByUser), "\(end)")
                let contents = try scene.fileContents()
                #expect(contents.kept == [scene.bob.deviceID.rawValue], "the released ack kept a removed device")
                #expect(contents.epoch == 2 && contents.removed == [newDevice.deviceID.rawValue])
                #expect(contents.removal == nil, "the catch-up finished the removal")
                let logCount = contents.logCount
                _ = try await scene.bob.renewOwnCertificate()
                #expect(try scene.fileContents().logCount == logCount, "a certificate was issued for the removed device")
                await newDevice.shutdown()
                await scene.bob.shutdown()
                await scene.alice.shutdown()
            }
        }

        @Test("K25: the primary removes the laptop while a new device's ack(0) is held: on the ack it renews the new device at the new epoch, and Alice keeps it linked")
        func grantRacingRemoval() async throws {
            try await MessagingHarness.with { harness in
                let scene = try await OwnUserKeyScene.make(harness)
                defer { scene.cleanUp() }
                let laptop = try await harness.login("bob", configuration: MessagingHarness.recipientConfiguration)
                try await LinkCeremonyIntegrationTests.link(laptop, to: scene.bob)
                let newDevice = try await harness.login("bob", deviceName: "tablet", configuration: MessagingHarness.recipientConfiguration)
                let primarySteps = try await Self.linkHoldingAck(newDevice, to: scene.bob, harness: harness)
                #expect(try await newDevice.ownUserKey().epoch == 1, "setting up: the grant was issued at epoch 1")

                try await scene.bob.removeDevice(laptop.deviceID)
                #expect(try scene.fileContents().epoch == 2)
                try await harness.server.faults.releasePosts()
                try await scene.bob.sync()
                #expect(try await primarySteps.next(until: nil) == .linked)
                await scene.bob.waitForOutbox()
                let contents = try scene.fileContents()
                #expect(Set(contents.kept) == [scene.bob.deviceID.rawValue, newDevice.deviceID.rawValue])
                #expect(contents.newestEntry(for: newDevice.deviceID.rawValue)?.epoch == 2, "the new device was not renewed at the new epoch")

                let adopted = await eventually(within: .seconds(10)) {
                    try? await newDevice.sync()
                    return (try? await KeptRenewalTests.listedCertificate(of: newDevice, harness: harness))?.epoch == 2
                }
                #expect(adopted, "the new device never adopted its epoch-2 certificate")
                let sent = try await scene.aliceSends("after the race")
                #expect(Set(sent.recipients ?? []) == [scene.bob.deviceID, newDevice.deviceID])
                await newDevice.shutdown()
                await laptop.shutdown()
                await scene.bob.shutdown()
                await scene.alice.shutdown()
            }
        }

        @Test("K26: a stolen laptop recertifies itself under the thief's key: the primary surfaces it and keeps issuing")
        func stolenLaptopUnderAnotherKey() async throws {
            try await MessagingHarness.with { harness in
                var scene = try await OwnUserKeyScene.make(harness)
                defer { scene.cleanUp() }
                let laptop = try await harness.login("bob", configuration: MessagingHarness.recipientConfiguration)
                try await LinkCeremonyIntegrationTests.link(laptop, to: scene.bob)
                let thief = Ed25519.PrivateKey(using: SystemRandom())
                _ = try await KeyedContact.certify(laptop, by: thief, notAfter: UInt32(KeyedContact.wallClock() + 20 * Self.day))

                let events = EventLog(scene.bob)
                _ = try await scene.bob.renewOwnCertificate()
                #expect(await events.all().contains(.linking(.keptDeviceUnderAnotherKey(laptop.deviceID))))
                #expect(try await scene.bob.ownUserKey().issuingStopped == nil, "a foreign key on a kept device stopped issuing")
                try await scene.restartBob(offset: 8 * Self.day)
                #expect(try await scene.bob.ownUserKey().issuingStopped == nil)
                #expect(try scene.fileContents().newestEntry(for: scene.bob.deviceID.rawValue)?.notAfter ?? 0 > UInt32(KeyedContact.wallClock() + 37 * Self.day),
                        "the primary stopped renewing itself")
                // The user removes it. The primary's clock runs 8 days ahead of the server's, so
                // once a post of its (the laptop's recert) comes back stamped by the server the clock
                // is suspect and nothing is issued until the user confirms it (§10.19): the user does.
                await scene.bob.waitForOutbox()
                try await scene.bob.confirmClock()
                try await scene.bob.removeDevice(laptop.deviceID)
                #expect(try scene.fileContents().epoch == 2)
                await laptop.shutdown()
                await scene.bob.shutdown()
                await scene.alice.shutdown()
            }
        }

        @Test("only the primary removes: a linked device gets notPrimary; the primary cannot remove itself")
        func onlyThePrimary() async throws {
            try await MessagingHarness.with { harness in
                let scene = try await OwnUserKeyScene.make(harness)
                defer { scene.cleanUp() }
                let laptop = try await harness.login("bob", configuration: MessagingHarness.recipientConfiguration)
                try await LinkCeremonyIntegrationTests.link(laptop, to: scene.bob)
                await #expect(throws: MessagingError.notPrimary) { try await laptop.removeDevice(scene.bob.deviceID) }
                await #expect(throws: MessagingError.self) { try await scene.bob.removeDevice(scene.bob.deviceID) }
                #expect(try scene.fileContents().epoch == 1)
                await laptop.shutdown()
                await scene.bob.shutdown()
                await scene.alice.shutdown()
            }
        }

        /// Whether the server lists `account`'s device for its user, read as `reader`.
        static func listed(_ account: Account, reader: Account, harness: MessagingHarness) async throws -> Bool {
            try await harness.reader(of: reader).bundles(userID: account.userID).contains { $0.deviceID == account.deviceID }
        }

        /// Runs the ceremony between `newDevice` and `primary` up to the new device's adoption
        /// of its grant, with its posts held from then on (its `ack(0)` waits on the server).
        /// Returns the primary's steps, which have shown `granted`.
        static func linkHoldingAck(_ newDevice: Account, to primary: Account, harness: MessagingHarness) async throws -> RemovalSteps {
            let primarySteps = RemovalSteps(try await primary.openLinkStep())
            let newSteps = RemovalSteps(try await newDevice.startLinking())
            await newDevice.waitForOutbox()
            try await primary.sync()
            _ = try await primarySteps.next(until: .requestReceived(newDevice.deviceID))
            await primary.waitForOutbox()
            try await newDevice.sync()
            guard case .showCode(let codeN) = try await newSteps.next(until: nil) else { throw KeptRenewalFailure("no code on the new device") }
            await newDevice.waitForOutbox()
            try await primary.sync()
            _ = try await primarySteps.next(until: .enterCode)
            await primarySteps.attempt.enter(code: codeN)
            guard case .showCode(let codeP) = try await primarySteps.next(until: nil) else { throw KeptRenewalFailure("no code on the primary") }
            _ = try await primarySteps.next(until: .granted(newDevice.deviceID))
            await primary.waitForOutbox()
            await harness.server.faults.holdPosts(contentType: LinkEnvelope.contentType, fromDevice: newDevice.deviceID.rawValue)
            await newSteps.attempt.enter(code: codeP)
            try await newDevice.sync()
            _ = try await newSteps.next(until: .linked)
            await newDevice.waitForOutbox()
            #expect(await harness.server.faults.heldPostCount == 1, "setting up: the new device's ack(0) is held")
            return primarySteps
        }
    }
}

/// A forwarding client that records, in order, the calls a removal makes (`keys` for an
/// upload of our bundle, `delete`, `link` for a link envelope posted) and can fail uploads.
final class RemovalRecorder: ForwardingChatServer, @unchecked Sendable {
    let base: any ChatServerAPI
    private let recorded = Mutex<[String]>([])
    private let failing = Mutex(0)
    private let failingDeletes = Mutex(0)

    init(_ base: any ChatServerAPI) { self.base = base }

    /// The calls made so far.
    var calls: [String] { recorded.withLock { $0 } }

    /// The next `count` uploads fail with a 503 before reaching the server.
    func failUploads(_ count: Int) { failing.withLock { $0 = count } }

    /// The next `count` device deletes fail with a 503 before reaching the server.
    func failDeletes(_ count: Int) { failingDeletes.withLock { $0 = count } }

    /// Forgets the calls recorded so far.
    func reset() { recorded.withLock { $0 = [] } }

    func uploadKeys(_ upload: KeyBundleUpload) async throws {
        if Self.take(failing) { throw ServerError.server(status: 503, body: "unavailable") }
        try await base.uploadKeys(upload)
        recorded.withLock { $0.append("keys") }
    }

    func deleteDevice(id: DeviceID) async throws {
        if Self.take(failingDeletes) { throw ServerError.server(status: 503, body: "unavailable") }
        try await base.deleteDevice(id: id)
        recorded.withLock { $0.append("delete") }
    }

    /// Whether a failure is due, counting it.
    private static func take(_ counter: borrowing Mutex<Int>) -> Bool {
        counter.withLock { count -> Bool in
            guard count > 0 else { return false }
            count -= 1
            return true
        }
    }

    func sendMessage(channelID: ChannelID, _ message: OutgoingMessage) async throws -> ServerMessage {
        let sent = try await base.sendMessage(channelID: channelID, message)
        if message.contentType == LinkEnvelope.contentType { recorded.withLock { $0.append("link") } }
        return sent
    }
}

/// Reads one end's link steps in order, with a time limit.
final class RemovalSteps: @unchecked Sendable {
    let attempt: LinkAttempt
    private var iterator: AsyncStream<LinkStep>.AsyncIterator

    init(_ attempt: LinkAttempt) {
        self.attempt = attempt
        iterator = attempt.steps.makeAsyncIterator()
    }

    /// The next step, within 10 seconds.
    func next() async throws -> LinkStep {
        let box = self
        let step = await withTaskGroup(of: LinkStep?.self) { group in
            group.addTask { await box.iterator.next() }
            group.addTask {
                try? await Task.sleep(for: .seconds(10))
                return nil
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first
        }
        guard let step else { throw KeptRenewalFailure("no step within 10 s") }
        return step
    }

    /// `wanted`, skipping what comes before it; with `nil`, the next step that is not waiting,
    /// a request, or asking for a code.
    func next(until wanted: LinkStep?) async throws -> LinkStep {
        while true {
            let step = try await next()
            if let wanted { if step == wanted { return step } else { continue } }
            switch step {
            case .waiting, .requestReceived, .enterCode: continue
            default: return step
            }
        }
    }
}
