import E2EECrypto
import E2EEDevServer
@_spi(StoreInternals) import E2EEKeyStore
@testable import E2EEMessaging
import Foundation
import Testing

extension IntegrationTests {
    /// docs/spec/protocol.md §10.11 end to end against the development server: Bob's primary
    /// opens "link a device", a new login asks, the user types each device's code into the
    /// other, and the new device is linked under Bob's key — Alice, who pinned that key, sends
    /// to it without any prompt.
    @Suite("Linking a device")
    struct LinkCeremonyIntegrationTests {
        @Test("two typed codes link a new login; the contact sends to it with no prompt")
        func linkWithTwoCodes() async throws {
            try await MessagingHarness.with { harness in
                let scene = try await OwnUserKeyScene.make(harness)
                defer { scene.cleanUp() }
                let laptop = try await harness.login("bob", configuration: MessagingHarness.recipientConfiguration)
                let primary = Steps(try await scene.bob.openLinkStep())
                let newDevice = Steps(try await laptop.startLinking())
                await laptop.waitForOutbox()

                try await scene.bob.sync()
                #expect(try await primary.next() == .waiting)
                #expect(try await primary.next() == .requestReceived(laptop.deviceID))
                await scene.bob.waitForOutbox()
                try await laptop.sync()
                #expect(try await newDevice.next() == .waiting)
                guard case .showCode(let codeN) = try await newDevice.next() else { throw Failure("no code on the new device") }
                #expect(try await newDevice.next() == .enterCode)
                await laptop.waitForOutbox()
                try await scene.bob.sync()
                #expect(try await primary.next() == .enterCode)

                await primary.attempt.enter(code: codeN)
                guard case .showCode(let codeP) = try await primary.next() else { throw Failure("no code on the primary") }
                #expect(try await primary.next() == .granted(laptop.deviceID))
                await scene.bob.waitForOutbox()
                await newDevice.attempt.enter(code: codeP)
                try await laptop.sync()
                #expect(try await newDevice.next() == .linked)
                await laptop.waitForOutbox()
                try await scene.bob.sync()
                #expect(try await primary.next() == .linked)

                let status = try await laptop.ownUserKey()
                #expect(status.role == .linked)
                #expect(try scene.fileContents().kept.contains(laptop.deviceID.rawValue), "the primary keeps the new device")

                let log = EventLog(scene.alice)
                let sent = try await scene.aliceSends("to both of Bob's devices")
                #expect(Set(sent.recipients ?? []) == [scene.bob.deviceID, laptop.deviceID])
                #expect(await log.identity().filter(\.isKeyPrompt).isEmpty, "a linked device prompted the contact")
                #expect(await log.identity().contains(.linkedDeviceAdded(userID: scene.bob.userID, deviceID: laptop.deviceID)))
                // The primary's own messages reach the device it linked, with no approval asked.
                let fromPrimary = try await KeyedContact.send("from the phone", from: scene.bob, to: scene.dm.id, harness: harness)
                #expect(fromPrimary.recipients?.contains(laptop.deviceID) == true, "the primary held the device it linked")
                #expect(try await scene.bob.heldDevices().isEmpty)
                await laptop.shutdown()
                await scene.bob.shutdown()
                await scene.alice.shutdown()
            }
        }

        @Test("the stranger case: a stranger joined Bob's group; Bob's new linked device takes the primary's trust, sends the stranger nothing, and accepts nothing again")
        func strangerCase() async throws {
            try await MessagingHarness.with { harness in
                let scene = try await OwnUserKeyScene.make(harness)
                defer { scene.cleanUp() }
                let group = try await scene.bob.createGroup(name: "family", members: [scene.alice.userID])
                let mallory = try await harness.register("mallory")
                try await harness.reader(of: mallory).joinChannel(id: group.id)
                // The primary's first send meets the stranger and holds her: nothing goes to her.
                let first = try await KeyedContact.send("before the laptop", from: scene.bob, to: group.id, harness: harness)
                #expect(first.recipients?.contains(mallory.deviceID) == false)

                let laptop = try await harness.login("bob", configuration: MessagingHarness.recipientConfiguration)
                let laptopEvents = EventLog(laptop)
                _ = try await laptop.refreshChannels()
                #expect(try await laptop.channelRequests().count == 2, "before the transfer, the DM and the group are requests")
                try await Self.link(laptop, to: scene.bob)
                try await Self.pump(scene.bob, laptop, until: laptopEvents) { if case .linking(.trustTransferred) = $0 { true } else { false } }

                #expect(try await laptop.channelRequests().isEmpty, "the new device asked again about what its primary decided")
                let fromLaptop = try await KeyedContact.send("from the laptop", from: laptop, to: group.id, harness: harness)
                let recipients = Set(fromLaptop.recipients ?? [])
                #expect(!recipients.contains(mallory.deviceID), "the new device sent the stranger a key")
                #expect(recipients.contains(scene.alice.deviceID) && recipients.contains(scene.bob.deviceID), "\(recipients)")
                let heldOnPrimary = try await scene.bob.pendingMembers().filter { $0.channelID == group.id }.map(\.userID)
                let heldOnLaptop = try await laptop.pendingMembers().filter { $0.channelID == group.id }.map(\.userID)
                #expect(heldOnPrimary == [mallory.userID], "setting up: the primary holds the stranger")
                #expect(heldOnLaptop == heldOnPrimary, "the new device shows the group's members as its primary does")
                await laptop.shutdown()
                await mallory.shutdown()
                await scene.bob.shutdown()
                await scene.alice.shutdown()
            }
        }

        /// Links `laptop` to `primary` with the two codes, driving both ends over the server.
        /// `beforeTransfer` runs after the new device posted its `ack(0)` and before the primary
        /// reads it (where a test mounts a fault on the transfer's first messages).
        static func link(_ laptop: Account, to primary: Account, history: HistoryScope = .default,
                         beforeTransfer: () async throws -> Void = {}) async throws {
            let (primarySteps, newSteps, codeN) = try await untilCodes(primary, laptop, history: history)
            let codeP = try await granted(primarySteps, of: primary, typing: codeN, for: laptop)
            await newSteps.attempt.enter(code: codeP)
            try await laptop.sync()
            _ = try await newSteps.next(until: .linked)
            await laptop.waitForOutbox()
            try await beforeTransfer()
            try await primary.sync()
            _ = try await primarySteps.next(until: .linked)
        }

        /// Opens the primary's step and the new device's attempt and carries them to the new
        /// device's code (the user has it to type into the primary, which asks for it).
        static func untilCodes(_ primary: Account, _ laptop: Account, history: HistoryScope = .default) async throws
            -> (primary: Steps, newDevice: Steps, codeN: String) {
            let primarySteps = Steps(try await primary.openLinkStep(history: history))
            let newSteps = Steps(try await laptop.startLinking())
            await laptop.waitForOutbox()
            try await primary.sync()
            await primary.waitForOutbox()
            try await laptop.sync()
            guard case .showCode(let codeN) = try await newSteps.next(until: nil) else { throw Failure("no code on the new device") }
            await laptop.waitForOutbox()
            try await primary.sync()
            _ = try await primarySteps.next(until: .enterCode)
            return (primarySteps, newSteps, codeN)
        }

        /// The user types `codeN` into the primary: returns the primary's code once the grant to
        /// `laptop` is posted.
        static func granted(_ steps: Steps, of primary: Account, typing codeN: String, for laptop: Account) async throws -> String {
            await steps.attempt.enter(code: codeN)
            guard case .showCode(let codeP) = try await steps.next(until: nil) else { throw Failure("no code on the primary") }
            _ = try await steps.next(until: .granted(laptop.deviceID))
            await primary.waitForOutbox()
            return codeP
        }

        /// Carries the two devices' link messages back and forth (each posts what it queued, the
        /// other reads it) until `log` holds an event `matches` accepts (at most 20 rounds).
        static func pump(_ primary: Account, _ laptop: Account, until log: EventLog,
                         _ matches: @escaping @Sendable (AccountEvent) -> Bool) async throws {
            for _ in 0..<20 {
                await primary.waitForOutbox()
                try await laptop.sync()
                if await log.all().contains(where: matches) { return }
                await laptop.waitForOutbox()
                try await primary.sync()
            }
            throw Failure("the event never came")
        }

        @Test("a wrong code typed into the primary cancels both ends and grants nothing")
        func wrongCode() async throws {
            try await MessagingHarness.with { harness in
                let scene = try await OwnUserKeyScene.make(harness)
                defer { scene.cleanUp() }
                let laptop = try await harness.login("bob", configuration: MessagingHarness.recipientConfiguration)
                let primary = Steps(try await scene.bob.openLinkStep())
                let newDevice = Steps(try await laptop.startLinking())
                await laptop.waitForOutbox()
                try await scene.bob.sync()
                await scene.bob.waitForOutbox()
                try await laptop.sync()
                await laptop.waitForOutbox()
                try await scene.bob.sync()
                _ = try await primary.next(until: .enterCode)
                guard case .showCode(let codeN) = try await newDevice.next(until: nil, skipping: [.waiting]) else { throw Failure("no code") }
                await primary.attempt.enter(code: codeN == "000000" ? "000001" : "000000")
                #expect(try await primary.next() == .cancelled(.codeMismatch))
                await scene.bob.waitForOutbox()
                try await laptop.sync()
                #expect(try await newDevice.next(until: nil, skipping: [.enterCode]) == .cancelled(.codeMismatch))
                #expect(try await laptop.ownUserKey().role != .linked)
                #expect(try scene.fileContents().log.count == 1, "a certificate was issued for a wrong code")
                await laptop.shutdown()
                await scene.bob.shutdown()
                await scene.alice.shutdown()
            }
        }

        @Test("only the primary opens a link step; a new device with no primary listed cannot start")
        func refusals() async throws {
            try await MessagingHarness.with { harness in
                let carol = try await harness.register("carol")
                await #expect(throws: MessagingError.notPrimary) { _ = try await carol.openLinkStep() }
                let laptop = try await harness.login("carol")
                await #expect(throws: MessagingError.noPrimaryListed) { _ = try await laptop.startLinking() }
                await carol.shutdown()
                await laptop.shutdown()
            }
        }
    }
}

/// Reads one end's steps in order, with a time limit.
final class Steps: @unchecked Sendable {
    let attempt: LinkAttempt
    private var iterator: AsyncStream<LinkStep>.AsyncIterator

    init(_ attempt: LinkAttempt) {
        self.attempt = attempt
        iterator = attempt.steps.makeAsyncIterator()
    }

    func next(within limit: Duration = .seconds(10)) async throws -> LinkStep {
        let box = self
        let step = await withTaskGroup(of: LinkStep?.self) { group in
            group.addTask { await box.iterator.next() }
            group.addTask {
                try? await Task.sleep(for: limit)
                return nil
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first
        }
        guard let step else { throw Failure("no step within \(limit)") }
        return step
    }

    /// The reason of the first cancellation among the next steps (others skipped).
    func cancellation() async throws -> LinkCancelReason {
        while true {
            if case .cancelled(let reason) = try await next() { return reason }
        }
    }

    /// The next step that is not one of `skipping` (or, with `until`, that step itself).
    func next(until wanted: LinkStep?, skipping: Set<LinkStep> = [.waiting, .requestReceived(DeviceID(""))]) async throws -> LinkStep {
        while true {
            let step = try await next()
            if let wanted { if step == wanted { return step } else { continue } }
            if case .requestReceived = step { continue }
            if !skipping.contains(step) { return step }
        }
    }
}

struct Failure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

extension IntegrationTests.LinkCeremonyIntegrationTests {
    @Test("K32: a login of an account with a key, linking off, sends nothing (linkingRequired) until it is linked; then it sends")
    func loginMustLink() async throws {
        try await MessagingHarness.with { harness in
            let scene = try await OwnUserKeyScene.make(harness)
            defer { scene.cleanUp() }
            let laptop = try await harness.login("bob", configuration: MessagingHarness.recipientConfiguration)
            #expect(try await laptop.ownUserKey().role == .unlinked)
            _ = try await laptop.refreshChannels()
            #expect(try await laptop.openDirectMessage(with: scene.alice.userID).id == scene.dm.id)
            let reader = try await harness.reader(of: scene.alice)
            let before = try await harness.serverMessages(scene.dm.id, as: reader).count
            await #expect(throws: MessagingError.linkingRequired) { _ = try await laptop.send(text: "not linked yet", to: scene.dm.id) }
            await laptop.waitForOutbox()
            #expect(try await harness.serverMessages(scene.dm.id, as: reader).count == before, "an unlinked login posted")

            try await IntegrationTests.LinkCeremonyIntegrationTests.link(laptop, to: scene.bob)
            let sent = try await KeyedContact.send("linked now", from: laptop, to: scene.dm.id, harness: harness)
            #expect(sent.recipients?.contains(scene.alice.deviceID) == true)
            await laptop.shutdown()
            await scene.bob.shutdown()
            await scene.alice.shutdown()
        }
    }

    @Test("a login of an account without a key sends as before")
    func loginWithoutKey() async throws {
        try await MessagingHarness.with { harness in
            let carol = try await harness.register("carol")
            let laptop = try await harness.login("carol")
            #expect(try await laptop.ownUserKey().role == .noKey)
            await carol.shutdown()
            await laptop.shutdown()
        }
    }
}

extension IntegrationTests.LinkCeremonyIntegrationTests {
    @Test("K20: two new logins ask while the primary's step is open: the step closes, both are cancelled, nothing is granted; one after the other, both link")
    func twoAtOnce() async throws {
        try await MessagingHarness.with { harness in
            let scene = try await OwnUserKeyScene.make(harness)
            defer { scene.cleanUp() }
            let first = try await harness.login("bob", configuration: MessagingHarness.recipientConfiguration)
            let second = try await harness.login("bob", configuration: MessagingHarness.recipientConfiguration)
            let primary = Steps(try await scene.bob.openLinkStep())
            let one = Steps(try await first.startLinking())
            let two = Steps(try await second.startLinking())
            await first.waitForOutbox()
            await second.waitForOutbox()
            try await scene.bob.sync()
            #expect(try await primary.cancellation() == .superseded)
            await scene.bob.waitForOutbox()
            try await first.sync()
            try await second.sync()
            #expect(try await one.cancellation() == .superseded)
            #expect(try await two.cancellation() == .superseded)
            #expect(try scene.fileContents().log.count == 1, "a certificate was issued while two devices asked")

            // One after the other, each links.
            try await IntegrationTests.LinkCeremonyIntegrationTests.link(first, to: scene.bob)
            let secondEvents = EventLog(second)
            try await IntegrationTests.LinkCeremonyIntegrationTests.link(second, to: scene.bob)
            try await IntegrationTests.LinkCeremonyIntegrationTests.pump(scene.bob, second, until: secondEvents) {
                if case .linking(.trustTransferred) = $0 { true } else { false }
            }
            #expect(try await first.ownUserKey().role == .linked)
            #expect(try await second.ownUserKey().role == .linked)
            // The second device learned the first from the primary as a linked own device, with the
            // certificate the primary's file logged for it.
            let own = scene.bob.userID.rawValue
            let links = try await second.store.read { db in try second.store.contactKeyStore.loadLinks(userID: own, db) }
            #expect(links[first.deviceID.rawValue]?.linked == true, "\(links)")
            await first.shutdown()
            await second.shutdown()
            await scene.bob.shutdown()
            await scene.alice.shutdown()
        }
    }
}

