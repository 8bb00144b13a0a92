import E2EECrypto
import E2EEDevServer
import E2EEKeyStore
import E2EEMessaging
import Foundation
import Testing

extension IntegrationTests {
    /// docs/spec/protocol.md §10.17, §10.19 (text 1.3), attack K12 of the linking proposal: only
    /// this device's own clock counts, and a key change waits for the reading a post agreed
    /// with; a clock set back below the mark keeps expired certificates expired until the user
    /// confirms the clock.
    @Suite("A contact's clock")
    struct ContactClockTests {
        @Test("K12: Alice's clock past seen_until with no post agreeing: a listed K2 is not offered (clockSuspect); set back: clockWentBack, Bob unlinked until she confirms")
        func clockAheadThenBack() async throws {
            try await MessagingHarness.with { harness in
                var scene = try await KeyedContact.make(harness)
                // Alice's clock will jump past every K1 certificate's end; no post of hers agrees with it.
                let ahead = Int64(max(scene.phoneNotAfter, scene.laptopNotAfter)) + 2 * KeyedContact.day
                // L now carries another key (as after a reset elsewhere), current at that reading too; P keeps its K1 record.
                let otherKey = Ed25519.PrivateKey()
                _ = try await KeyedContact.certify(scene.laptop, by: otherKey, notAfter: UInt32(ahead + 10 * KeyedContact.day))
                try await scene.moveAliceClock(to: ahead, confirm: false)
                var log = EventLog(scene.alice)
                let whileAhead = try await scene.send("while my clock runs ahead")
                #expect(whileAhead.recipients == nil, "nothing is posted to a user with no linked device")
                #expect(whileAhead.report.state == .failed)
                let ahead1 = await log.all()
                #expect(ahead1.contains(.clockSuspect), "a gate only the unconfirmed clock opens is reported")
                let again = try await scene.send("again, the clock still unconfirmed")
                #expect(again.recipients == nil)
                #expect(await log.all().filter { $0 == .clockSuspect }.count == 1, "reported once, not at every listing that finds it")
                #expect(await log.identity().filter(\.isKeyPrompt).isEmpty, "no key change offered on an unconfirmed clock")
                #expect(try await scene.alice.userKey(of: scene.bob).change == nil)
                #expect(try await scene.alice.userKey(of: scene.bob).state == .pinned)

                // Set back to the real time: over a day below the mark.
                try await scene.moveAliceClock(to: KeyedContact.wallClock(), confirm: false)
                log = EventLog(scene.alice)
                let setBack = try await scene.send("after the clock was set back")
                #expect(setBack.recipients == nil, "P's certificate is past its end by the mark: still expired")
                #expect(await log.all().contains(.clockWentBack))

                // Confirmed: P is linked again (L, under another key, is not).
                try await scene.alice.confirmClock()
                let confirmed = try await scene.send("after confirming")
                #expect(confirmed.recipients == [scene.phone.deviceID], "\(String(describing: confirmed.recipients))")
                #expect(try await scene.alice.linkedDevices(of: scene.bob) == [scene.phone.deviceID])
            }
        }
    }
}
