import E2EECrypto
import E2EEDevServer
@_spi(StoreInternals) import E2EEKeyStore
@testable import E2EEMessaging
import Foundation
import Synchronization
import Testing

extension IntegrationTests {
    /// The linking proposal's attacks on the ceremony (part K, 18–19), against the development
    /// server: another own device — a login the server made, or the attacker's — takes part.
    @Suite("Link ceremony attacks")
    struct LinkCeremonyAttackTests {
        @Test("K19: an injected device asks as the primary opens: nothing is granted to it, the real device's attempt is cancelled")
        func ceremonyRace() async throws {
            try await MessagingHarness.with { harness in
                let scene = try await OwnUserKeyScene.make(harness)
                defer { scene.cleanUp() }
                let intruder = try await harness.login("bob", configuration: MessagingHarness.recipientConfiguration)
                let laptop = try await harness.login("bob", configuration: MessagingHarness.recipientConfiguration)
                let primary = Steps(try await scene.bob.openLinkStep())
                // The intruder's request is posted first: the primary answers it.
                let theirs = Steps(try await intruder.startLinking())
                await intruder.waitForOutbox()
                try await scene.bob.sync()
                #expect(try await primary.next(until: .requestReceived(intruder.deviceID)) == .requestReceived(intruder.deviceID))
                await scene.bob.waitForOutbox()
                try await intruder.sync()
                guard case .showCode = try await theirs.next(until: nil) else { throw Failure("no code on the intruder") }
                await intruder.waitForOutbox()
                try await scene.bob.sync()
                #expect(try await primary.next(until: .enterCode) == .enterCode)

                // The user's laptop asks too: the step closes, every requester is cancelled.
                let mine = Steps(try await laptop.startLinking())
                await laptop.waitForOutbox()
                try await scene.bob.sync()
                #expect(try await primary.cancellation() == .superseded)
                await scene.bob.waitForOutbox()
                try await intruder.sync()
                try await laptop.sync()
                #expect(try await theirs.cancellation() == .superseded)
                #expect(try await mine.cancellation() == .superseded)
                #expect(try scene.fileContents().log.count == 1, "a certificate was issued during the race")
                #expect(try await intruder.ownUserKey().role != .linked)
                await intruder.shutdown()
                await laptop.shutdown()
                await scene.bob.shutdown()
                await scene.alice.shutdown()
            }
        }

        @Test("K19: the intruder alone asked: the code the user reads on their own device does not match, nothing is granted")
        func intruderAloneGetsNoMatch() async throws {
            try await MessagingHarness.with { harness in
                let scene = try await OwnUserKeyScene.make(harness)
                defer { scene.cleanUp() }
                let intruder = try await harness.login("bob", configuration: MessagingHarness.recipientConfiguration)
                let primary = Steps(try await scene.bob.openLinkStep())
                let theirs = Steps(try await intruder.startLinking())
                await intruder.waitForOutbox()
                try await scene.bob.sync()
                await scene.bob.waitForOutbox()
                try await intruder.sync()
                guard case .showCode(let intruderCode) = try await theirs.next(until: nil) else { throw Failure("no code on the intruder") }
                await intruder.waitForOutbox()
                try await scene.bob.sync()
                _ = try await primary.next(until: .enterCode)
                // The user types what their own laptop would show; it is not the intruder's code.
                let typed = intruderCode == "000000" ? "000001" : "000000"
                await primary.attempt.enter(code: typed)
                #expect(try await primary.cancellation() == .codeMismatch)
                await scene.bob.waitForOutbox()
                try await intruder.sync()
                #expect(try await theirs.cancellation() == .codeMismatch)
                #expect(try scene.fileContents().log.count == 1, "a certificate was issued for a code that did not match")
                await intruder.shutdown()
                await scene.bob.shutdown()
                await scene.alice.shutdown()
            }
        }

        @Test("K21: a grant the server holds past the new device's 10 idle minutes: the device gives up and says so, the late grant is not adopted")
        func lateGrant() async throws {
            try await MessagingHarness.with { harness in
                let scene = try await OwnUserKeyScene.make(harness)
                defer { scene.cleanUp() }
                let laptopClock = MovableClock()
                var configuration = MessagingHarness.recipientConfiguration
                configuration.debugClockShift = laptopClock.reading
                let laptop = try await harness.login("bob", configuration: configuration)
                let (primary, mine, codeN) = try await LinkCeremonyIntegrationTests.untilCodes(scene.bob, laptop)
                // From now on the server holds the primary's link posts.
                await harness.server.faults.holdPosts(contentType: LinkEnvelope.contentType, fromDevice: scene.bob.deviceID.rawValue)
                let codeP = try await LinkCeremonyIntegrationTests.granted(primary, of: scene.bob, typing: codeN, for: laptop)
                await mine.attempt.enter(code: codeP)
                try await laptop.sync()

                // Eleven minutes pass on the laptop with no grant: it gives up and tells the primary.
                laptopClock.advance(by: 11 * 60)
                #expect(try await mine.cancellation() == .expired)
                await laptop.waitForOutbox()
                try await scene.bob.sync()
                #expect(try await primary.cancellation() == .expired)
                // The held grant is released: the laptop takes nothing.
                _ = try await harness.server.faults.releasePosts()
                try await laptop.sync()
                #expect(try await laptop.ownUserKey().role != .linked)
                #expect(try scene.fileContents().kept == [scene.bob.deviceID.rawValue])
                await laptop.shutdown()
                await scene.bob.shutdown()
                await scene.alice.shutdown()
            }
        }

        @Test("K21: an ack held past the grant's 15 minutes: the primary reports the link failed and stops resending; the late ack is surfaced and keeps nothing")
        func lateConfirmation() async throws {
            try await MessagingHarness.with { harness in
                var scene = try await OwnUserKeyScene.make(harness)
                defer { scene.cleanUp() }
                let primaryClock = MovableClock()
                await scene.bob.shutdown()
                var configuration = scene.configuration()
                configuration.debugClockShift = primaryClock.reading
                scene.bob = try await Account.open(server: try await harness.client(restoring: scene.bob.store), store: scene.bob.store,
                                                   configuration: configuration)
                let log = EventLog(scene.bob)
                let laptop = try await harness.login("bob", configuration: MessagingHarness.recipientConfiguration)
                let (primary, mine, codeN) = try await LinkCeremonyIntegrationTests.untilCodes(scene.bob, laptop)
                let codeP = try await LinkCeremonyIntegrationTests.granted(primary, of: scene.bob, typing: codeN, for: laptop)
                // The server holds the laptop's link posts: its ack(0) never reaches the primary in time.
                await harness.server.faults.holdPosts(contentType: LinkEnvelope.contentType, fromDevice: laptop.deviceID.rawValue)
                await mine.attempt.enter(code: codeP)
                try await laptop.sync()
                _ = try await mine.next(until: .linked)
                await laptop.waitForOutbox()

                // Sixteen minutes on the primary: the grant failed, reported, and no longer resent.
                primaryClock.advance(by: 16 * 60)
                #expect(try await primary.cancellation() == .expired)
                let devices = try #require(try await scene.bob.devicesChannel(create: false))
                let reader = try await harness.reader(of: scene.bob)
                let posted = try await harness.serverMessages(devices, as: reader).count
                primaryClock.advance(by: 3 * 60)
                try await Task.sleep(for: .seconds(6))
                await scene.bob.waitForOutbox()
                #expect(try await harness.serverMessages(devices, as: reader).count == posted, "a failed grant was posted again")

                // The ack is released: surfaced once, nothing kept.
                _ = try await harness.server.faults.releasePosts()
                try await scene.bob.sync()
                try await Task.sleep(for: .milliseconds(300))
                let events = await log.all()
                #expect(events.filter { $0 == .linking(.lateConfirmation(laptop.deviceID)) }.count == 1, "\(events)")
                #expect(try scene.fileContents().kept == [scene.bob.deviceID.rawValue])
                await laptop.shutdown()
                await scene.bob.shutdown()
                await scene.alice.shutdown()
            }
        }

        @Test("K18: mid-ceremony, a grant from another own device that was never asked is refused; the real link then goes through")
        func grantFromAnUnaskedDevice() async throws {
            try await MessagingHarness.with { harness in
                let scene = try await OwnUserKeyScene.make(harness)
                defer { scene.cleanUp() }
                let intruder = try await harness.login("bob", configuration: MessagingHarness.recipientConfiguration)
                let laptop = try await harness.login("bob", configuration: MessagingHarness.recipientConfiguration)
                let (primary, mine, codeN) = try await LinkCeremonyIntegrationTests.untilCodes(scene.bob, laptop)

                // The intruder sends the laptop a grant carrying a certificate for it under a key of
                // the intruder's, over their own ratchet, in Bob's devices channel.
                let key = Ed25519.PrivateKey()
                let certificate = try KeyedContact.certificate(for: laptop, by: key, notAfter: UInt32(KeyedContact.wallClock() + 20 * 86_400))
                let grant = try LinkGrant(requestID: WireUUID(bytes: Array(repeating: 7, count: 16)), certificate: certificate,
                                          transferID: WireUUID(bytes: Array(repeating: 8, count: 16)),
                                          transferChannelID: WireUUID(bytes: Array(repeating: 9, count: 16)))
                try await intruder.debugSendLinkPlaintext(try LinkPlaintext.grant(grant).encoded().withUnsafeBytes { Array($0) }, to: laptop.deviceID)
                try await laptop.sync()
                #expect(try await laptop.ownUserKey().role != .linked, "the laptop took a grant from a device it never asked")

                // The real ceremony goes on and the laptop takes Bob's key from his primary.
                let codeP = try await LinkCeremonyIntegrationTests.granted(primary, of: scene.bob, typing: codeN, for: laptop)
                await mine.attempt.enter(code: codeP)
                try await laptop.sync()
                _ = try await mine.next(until: .linked)
                let status = try await laptop.ownUserKey()
                #expect(status.role == .linked && status.primary == scene.bob.deviceID)
                #expect(status.key != nil && status.key != (try? KeyedContact.userKey(key)))
                await laptop.shutdown()
                await intruder.shutdown()
                await scene.bob.shutdown()
                await scene.alice.shutdown()
            }
        }
    }
}

/// A clock shift a test moves while accounts run (``AccountConfiguration/debugClockShift``).
final class MovableClock: Sendable {
    private let seconds = Mutex<Int64>(0)

    /// The shift now, in seconds.
    var reading: @Sendable () -> Int64 { { [self] in self.seconds.withLock { $0 } } }

    /// Moves the clock on by `delta` seconds.
    func advance(by delta: Int64) { seconds.withLock { $0 += delta } }
}
