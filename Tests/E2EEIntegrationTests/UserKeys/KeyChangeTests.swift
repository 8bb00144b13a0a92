import E2EECrypto
import E2EEDevServer
import E2EEKeyStore
import E2EEMessaging
import Foundation
import Testing

extension IntegrationTests {
    /// docs/spec/protocol.md §10.17 (text 1.3), attacks K8 and K11 of the linking proposal: a
    /// server that hides every record under Bob's key and lists a device under another key — or
    /// only a device without a key — gets nothing sent and no prompt before `seen_until` + 600 s
    /// by Alice's agreed clock; then the change is surfaced once, "not vouched", and nothing goes
    /// to the new key (or to no key) until Alice accepts. After comparing, she may pin or forget
    /// at once. The tests move Alice's clock (``AccountConfiguration/debugClockOffset``) and
    /// confirm it (``Account/confirmClock()``: the agreed reading the gate counts by).
    @Suite("User key changes")
    struct KeyChangeTests {
        /// The server hides P's and L's records from everyone and adds a device certified under a
        /// key of its own, current well past Bob's `seen_until`; returns that device and key.
        static func hideAndOfferAnotherKey(_ scene: KeyedContact) async throws -> (Account, Ed25519.PrivateKey) {
            await scene.serve(nil, as: scene.phone.deviceID)
            await scene.serve(nil, as: scene.laptop.deviceID)
            let added = try await scene.harness.injectDevice(into: scene.bob.rawValue)
            let serverKey = Ed25519.PrivateKey()
            try await KeyedContact.certify(added, by: serverKey, notAfter: scene.phoneNotAfter + UInt32(20 * KeyedContact.day))
            return (added, serverKey)
        }

        /// Alice's send in the DM fails, naming `reason`, and posts nothing.
        static func expectNothingSent(_ sent: KeyedContact.Sent, _ reason: String, sourceLocation: SourceLocation = #_sourceLocation) {
            #expect(sent.recipients == nil, "something was posted", sourceLocation: sourceLocation)
            #expect(sent.report.state == .failed, sourceLocation: sourceLocation)
            #expect(sent.report.failureReason?.contains(reason) == true, "\(sent.report.failureReason ?? "no reason")", sourceLocation: sourceLocation)
        }

        @Test("K8: K1 hidden, a K2 device listed: no prompt before seen_until + 600 s, then userKeyChanged once (not vouched), nothing sent before acceptance")
        func hiddenKeyChangeWaitsForTheGate() async throws {
            try await MessagingHarness.with { harness in
                var scene = try await KeyedContact.make(harness)
                let metAt = KeyedContact.wallClock()
                let (added, serverKey) = try await Self.hideAndOfferAnotherKey(scene)
                let serverUserKey = try KeyedContact.userKey(serverKey)
                var log = EventLog(scene.alice)
                Self.expectNothingSent(try await scene.send("now"), "noVerifiedDevice")
                #expect(await log.identity().filter(\.isKeyPrompt).isEmpty)
                #expect(await log.userKeyEvents().contains(.otherUserKeyListed(userID: scene.bob, key: serverUserKey)))

                // 500 s past seen_until, clock confirmed: still inside the 600 s grace.
                try await scene.moveAliceClock(to: Int64(scene.phoneNotAfter) + 500, confirm: true)
                log = EventLog(scene.alice)
                Self.expectNothingSent(try await scene.send("at seen_until + 500 s"), "noVerifiedDevice")
                #expect(await log.identity().filter(\.isKeyPrompt).isEmpty)
                #expect(try await scene.alice.userKey(of: scene.bob).change == nil)

                // 700 s past: the change is due, surfaced once, and still nothing is sent.
                try await scene.moveAliceClock(to: Int64(scene.phoneNotAfter) + 700, confirm: true)
                log = EventLog(scene.alice)
                Self.expectNothingSent(try await scene.send("at seen_until + 700 s"), "userKeyChangePending")
                Self.expectNothingSent(try await scene.send("again"), "userKeyChangePending")
                let prompts = await log.identity().filter(\.isKeyPrompt)
                #expect(prompts.count == 1)
                guard case .userKeyChanged(let user, let to, let lastSeen, let vouched, let wasVerified)? = prompts.first else {
                    Issue.record("no userKeyChanged: \(prompts)")
                    return
                }
                #expect(user == scene.bob && to == serverUserKey && !vouched && !wasVerified)
                #expect(abs(lastSeen.timeIntervalSince1970 - TimeInterval(metAt)) < 120, "last seen \(lastSeen)")
                let info = try await scene.alice.userKey(of: scene.bob)
                #expect(info.state == .pinned && info.key == scene.key)
                #expect(info.change?.to == serverUserKey && info.change?.vouched == false)
                #expect(try await readableTexts(added, scene.dm.id).isEmpty)

                // Alice accepts: the new key's device gets the next message.
                try await scene.alice.acceptUserKeyChange(of: scene.bob)
                let accepted = try await scene.send("after accepting")
                #expect(accepted.recipients == [added.deviceID])
                #expect(try await scene.alice.userKey(of: scene.bob).key == serverUserKey)
            }
        }

        @Test("K8: after comparing safety numbers, Alice pins the listed key at once, without waiting for the gate")
        func manualPinWorksAtOnce() async throws {
            try await MessagingHarness.with { harness in
                let scene = try await KeyedContact.make(harness)
                let (added, serverKey) = try await Self.hideAndOfferAnotherKey(scene)
                Self.expectNothingSent(try await scene.send("now"), "noVerifiedDevice")
                let listed = try KeyedContact.userKey(serverKey)
                #expect(try await scene.alice.userKey(of: scene.bob).otherKeys == [listed])
                // The number to compare under the listed key, which the one shown now is not.
                let compared = try await scene.alice.safetyNumber(with: scene.bob, userKey: listed)
                #expect(try await scene.alice.safetyNumber(with: scene.bob) != compared)

                try await scene.alice.pinUserKey(listed, of: scene.bob)
                #expect(try await scene.alice.safetyNumber(with: scene.bob) == compared)
                let pinned = try await scene.send("after pinning")
                #expect(pinned.recipients == [added.deviceID])
                let info = try await scene.alice.userKey(of: scene.bob)
                #expect(info.state == .pinned && info.key == listed && info.change == nil)
                // A key never listed for Bob cannot be pinned.
                await #expect(throws: MessagingError.unknownUserKey(userID: scene.bob)) {
                    try await scene.alice.pinUserKey(try KeyedContact.userKey(Ed25519.PrivateKey()), of: scene.bob)
                }
            }
        }

        @Test("K11: K1 hidden, L's zero-certificate record listed: L is never a recipient; after the gate *no key* is offered, not vouched; accepting holds every device")
        func noKeyLeftIsGatedThenHeld() async throws {
            try await MessagingHarness.with { harness in
                var scene = try await KeyedContact.make(harness)
                await scene.serve(nil, as: scene.phone.deviceID)
                await scene.serve(scene.zeroRecords[scene.laptop.deviceID], as: scene.laptop.deviceID)
                var log = EventLog(scene.alice)
                Self.expectNothingSent(try await scene.send("now"), "noVerifiedDevice")
                #expect(await log.identity().filter(\.isKeyPrompt).isEmpty)
                #expect(await log.userKeyEvents().contains(.deviceUnlinked(userID: scene.bob, deviceID: scene.laptop.deviceID, reason: .legacy)))
                #expect(try await scene.alice.pendingRecipients().isEmpty)

                try await scene.moveAliceClock(to: Int64(scene.phoneNotAfter) + 700, confirm: true)
                log = EventLog(scene.alice)
                Self.expectNothingSent(try await scene.send("after the gate"), "userKeyChangePending")
                Self.expectNothingSent(try await scene.send("again"), "userKeyChangePending")
                let prompts = await log.identity().filter(\.isKeyPrompt)
                #expect(prompts.count == 1)
                guard case .userKeyChanged(let user, let to, _, let vouched, _)? = prompts.first else {
                    Issue.record("no userKeyChanged: \(prompts)")
                    return
                }
                #expect(user == scene.bob && to == nil && !vouched)

                try await scene.alice.acceptUserKeyChange(of: scene.bob)
                #expect(try await scene.alice.userKey(of: scene.bob).state == .none)
                let held = try await scene.send("after accepting no key")
                #expect(held.recipients == nil, "something was posted")
                #expect(held.report.recipients.held == [RecipientDevice(userID: scene.bob, deviceID: scene.laptop.deviceID)])
                #expect(try await scene.alice.pendingRecipients().map(\.device.deviceID) == [scene.laptop.deviceID])
                #expect(try await readableTexts(scene.laptop, scene.dm.id) == ["hello"])
            }
        }

        @Test("K11: after comparing, forgetUserKey returns Bob to no key at once: every listed device is held, in the DM and in a new group, and so is one the server adds")
        func forgetUserKeyHoldsAtOnce() async throws {
            try await MessagingHarness.with { harness in
                let scene = try await KeyedContact.make(harness)
                await scene.serve(nil, as: scene.phone.deviceID)
                await scene.serve(scene.zeroRecords[scene.laptop.deviceID], as: scene.laptop.deviceID)
                Self.expectNothingSent(try await scene.send("now"), "noVerifiedDevice")

                try await scene.alice.forgetUserKey(of: scene.bob)
                #expect(try await scene.alice.userKey(of: scene.bob).state == .none)
                let added = try await harness.injectDevice(into: scene.bob.rawValue)
                let held = try await scene.send("after forgetting")
                #expect(held.recipients == nil, "something was posted")
                #expect(Set(held.report.recipients.held.map(\.deviceID)) == [scene.laptop.deviceID, added.deviceID])
                // A group made now is no first contact with Bob: his devices are held there too.
                let group = try await scene.alice.createGroup(name: "after forgetting", members: [scene.bob])
                let inGroup = try await KeyedContact.send("to the group", from: scene.alice, to: group.id, harness: harness)
                #expect(inGroup.recipients?.isEmpty != false, "\(String(describing: inGroup.recipients))")
                #expect(Set(inGroup.report.recipients.held.map(\.deviceID)) == [scene.laptop.deviceID, added.deviceID])
                // Approved after all, L gets the next message; the server's device does not.
                try await scene.alice.approveDevice(scene.laptop.deviceID)
                let approved = try await scene.send("after approving")
                #expect(approved.recipients == [scene.laptop.deviceID])
            }
        }
    }
}
