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
                await laptop.shutdown()
                await scene.bob.shutdown()
                await scene.alice.shutdown()
            }
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
private final class Steps: @unchecked Sendable {
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

private struct Failure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
