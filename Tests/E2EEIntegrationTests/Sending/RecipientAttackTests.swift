import E2EECrypto
import E2EEDevServer
import E2EEKeyStore
import E2EEMessaging
import E2EETransport
import Foundation
import Testing

extension IntegrationTests {
    /// docs/spec/protocol.md §5 "Who receives keys" and THREATS T11 against the development server: the
    /// four attacks of issue 15, each mounted for real, each ending with the attacker unable to
    /// read; and what an app does about held devices (approve, decline, restart).
    @Suite("Recipients the server cannot choose")
    struct RecipientAttackTests {
        @Test("T11 attack 1: anyone who joins a DM gets no key and reads nothing; their message in the DM is refused, never shown")
        func joinerOfDMReadsNothing() async throws {
            try await MessagingHarness.with { harness in
                let alice = try await harness.registerWithDefaults("alice")
                let bob = try await harness.registerWithDefaults("bob")
                let mallory = try await harness.registerWithDefaults("mallory")
                let dm = try await alice.openDirectMessage(with: bob.userID)
                _ = try await bob.openDirectMessage(with: alice.userID)
                try await alice.send(text: "before", to: dm.id)
                await alice.waitForOutbox()

                try await harness.reader(of: mallory).joinChannel(id: dm.id)
                let events = alice.events()
                let report = try await alice.send(text: "for bob only", to: dm.id)
                await alice.waitForOutbox()
                #expect(report.recipients.unexpectedMembers == [mallory.userID])
                #expect(report.recipients.recipientCount == 1)
                let anomaly = await firstEvent(in: events) { if case .identity(.unexpectedMember) = $0 { true } else { false } }
                #expect(anomaly == .identity(.unexpectedMember(channelID: dm.id, userID: mallory.userID)))
                let posted = try await harness.serverMessages(dm.id, as: harness.reader(of: bob))
                #expect(try recipientDevices(of: try #require(posted.last)) == [bob.deviceID])
                #expect(try await readableTexts(mallory, dm.id).isEmpty)
                #expect(try await readableTexts(bob, dm.id) == ["before", "for bob only"])

                // Mallory writes into the DM (to Alice, whom she can address), with a client that counts
                // her as a participant (hers would not: the DM is a request there): refused as not a participant.
                _ = try await mallory.refreshChannels()
                try await mallory.store.write { db in
                    _ = try mallory.store.recipientStore.fixParticipants(channelID: dm.id.rawValue, userIDs: [mallory.userID.rawValue, alice.userID.rawValue], db)
                    try mallory.store.channelTrustStore.storeStanding(.accepted, channelID: dm.id.rawValue, db)
                }
                let aliceEvents = alice.events()
                try await mallory.send(text: "hi, it's bob", to: dm.id)
                await mallory.waitForOutbox()
                #expect(try await readableTexts(alice, dm.id) == ["before", "for bob only"])
                let refused = await firstEvent(in: aliceEvents) { if case .inputRefused = $0 { true } else { false } }
                #expect(refused != nil)
                let rows = try await alice.store.read { db in
                    try String.fetchAll(db, sql: "SELECT failure_reason FROM timeline WHERE channel_id = ? AND kind = 'control'", arguments: [dm.id.rawValue])
                }
                #expect(rows == [UndecryptableReason.notAParticipant.rawValue])
            }
        }

        @Test("T11 attack 2: a device the server adds to Bob is surfaced and held; the message reaches Bob's real device only")
        func deviceAddedByServerIsHeld() async throws {
            try await MessagingHarness.with { harness in
                let (alice, bob, dm) = try await harness.dmAfterFirstContact()

                let attacker = try await harness.injectDevice(into: bob.userID.rawValue)
                let events = alice.events()
                let report = try await alice.send(text: "secret", to: dm.id)
                await alice.waitForOutbox()
                let injected = RecipientDevice(userID: bob.userID, deviceID: attacker.deviceID)
                #expect(report.recipients.held == [injected])
                #expect(report.recipients.surfaced == [injected])
                #expect(report.state != .failed)
                let surfaced = await firstEvent(in: events) { if case .identity(.recipientAdded) = $0 { true } else { false } }
                #expect(surfaced == .identity(.recipientAdded(channelID: dm.id, userID: bob.userID, deviceID: attacker.deviceID, held: true)))
                #expect(try await alice.pendingRecipients() == [HeldRecipient(channelID: dm.id, device: injected)])
                let posted = try await harness.serverMessages(dm.id, as: harness.reader(of: bob))
                #expect(try recipientDevices(of: try #require(posted.last)) == [bob.deviceID])
                #expect(try await readableTexts(attacker, dm.id).isEmpty)
                #expect(try await readableTexts(bob, dm.id) == ["hello", "secret"])
            }
        }

        @Test("T11 attack 3: the server swaps Bob's pinned device for its own: the removal is surfaced, the new device held, nothing sent")
        func swappedDeviceGetsNothing() async throws {
            try await MessagingHarness.with { harness in
                let (alice, bob, dm) = try await harness.dmAfterFirstContact()

                let attacker = try await harness.injectDevice(into: bob.userID.rawValue, replacing: bob.deviceID.rawValue)
                let events = alice.events()
                let report = try await alice.send(text: "secret", to: dm.id)
                #expect(report.everyRecipientHeld)
                #expect(report.state == .failed)
                #expect(report.recipients.held == [RecipientDevice(userID: bob.userID, deviceID: attacker.deviceID)])
                let removed = await firstEvent(in: events) { if case .identity(.deviceRemoved) = $0 { true } else { false } }
                #expect(removed == .identity(.deviceRemoved(userID: bob.userID, deviceID: bob.deviceID)))
                let posted = try await harness.serverMessages(dm.id, as: harness.reader(of: alice))
                #expect(posted.count == 1)
                #expect(try await readableTexts(attacker, dm.id).isEmpty)
                // Nothing is lost: the text waits as a failed draft.
                #expect(try await alice.outboxEntries(states: [.failed]).map(\.localID) == [report.localID])
            }
        }

        @Test("T11 attack 4: a group member who left and came back is surfaced again; under hold she reads nothing more")
        func rejoinedMemberIsSurfacedAndHeld() async throws {
            try await MessagingHarness.with { harness in
                let alice = try await harness.registerWithDefaults("alice")
                let bob = try await harness.registerWithDefaults("bob")
                let carol = try await harness.registerWithDefaults("carol")
                let group = try await alice.createGroup(name: "team", members: [bob.userID, carol.userID])
                try await harness.accept(group, on: [bob, carol])
                try await alice.setRecipientPolicy(.hold, channelID: group.id)
                try await alice.send(text: "welcome", to: group.id)
                await alice.waitForOutbox()
                #expect(try await readableTexts(carol, group.id) == ["welcome"])

                try await carol.leave(group.id)
                let events = alice.events()
                let afterLeave = try await alice.send(text: "carol left", to: group.id)
                await alice.waitForOutbox()
                #expect(afterLeave.recipients.removed == [RecipientDevice(userID: carol.userID, deviceID: carol.deviceID)])
                let removed = await firstEvent(in: events) { if case .identity(.recipientRemoved) = $0 { true } else { false } }
                #expect(removed == .identity(.recipientRemoved(channelID: group.id, userID: carol.userID, deviceID: carol.deviceID)))

                try await harness.reader(of: carol).joinChannel(id: group.id)
                let back = try await alice.send(text: "secret", to: group.id)
                await alice.waitForOutbox()
                #expect(back.recipients.held == [RecipientDevice(userID: carol.userID, deviceID: carol.deviceID)])
                #expect(back.recipients.surfaced == back.recipients.held)
                #expect(try await readableTexts(carol, group.id) == ["welcome"])
                #expect(try await readableTexts(bob, group.id) == ["welcome", "carol left", "secret"])
            }
        }

        @Test("a group member who left and rejoined is surfaced again and held, whatever the policy, and the event comes before any key")
        func rejoinedMemberIsSurfacedBeforeAnyKey() async throws {
            try await MessagingHarness.with { harness in
                let alice = try await harness.registerWithDefaults("alice")
                let bob = try await harness.registerWithDefaults("bob")
                let carol = try await harness.registerWithDefaults("carol")
                let group = try await alice.createGroup(name: "team", members: [bob.userID, carol.userID])
                try await harness.accept(group, on: [bob, carol])
                try await alice.send(text: "welcome", to: group.id)
                await alice.waitForOutbox()
                try await carol.leave(group.id)
                try await alice.send(text: "carol left", to: group.id)
                await alice.waitForOutbox()
                try await harness.reader(of: carol).joinChannel(id: group.id)

                let events = alice.events()
                let report = try await alice.send(text: "carol is back", to: group.id)
                await alice.waitForOutbox()
                #expect(report.recipients.surfaced == [RecipientDevice(userID: carol.userID, deviceID: carol.deviceID)])
                #expect(report.recipients.held == report.recipients.surfaced)
                let firstRelevant = await firstEvent(in: events) {
                    switch $0 {
                    case .identity(.recipientAdded), .delivery: true
                    default: false
                    }
                }
                #expect(firstRelevant == .identity(.recipientAdded(channelID: group.id, userID: carol.userID, deviceID: carol.deviceID, held: true)))
                #expect(try await readableTexts(carol, group.id) == ["welcome"])
            }
        }

        @Test("approve: a held device reads from then on and nothing earlier (DM; group by a new sender key with the next message)")
        func approvedDeviceReadsOnlyLaterMessages() async throws {
            try await MessagingHarness.with { harness in
                let alice = try await harness.registerWithDefaults("alice")
                let bob = try await harness.registerWithDefaults("bob")
                let dm = try await alice.openDirectMessage(with: bob.userID)
                let group = try await alice.createGroup(name: "team", members: [bob.userID])
                try await harness.accept(group, on: [bob])
                try await alice.setRecipientPolicy(.hold, channelID: group.id)
                try await alice.send(text: "dm one", to: dm.id)
                try await alice.send(text: "group one", to: group.id)
                await alice.waitForOutbox()

                let bob2 = try await harness.login("bob", configuration: MessagingHarness.recipientConfiguration)
                try await harness.accept(dm, on: [bob, bob2], between: (alice.userID, bob.userID))
                try await alice.send(text: "dm two", to: dm.id)
                try await alice.send(text: "group two", to: group.id)
                await alice.waitForOutbox()
                let held = RecipientDevice(userID: bob.userID, deviceID: bob2.deviceID)
                #expect(Set(try await alice.pendingRecipients()) == [HeldRecipient(channelID: dm.id, device: held), HeldRecipient(channelID: group.id, device: held)])

                let before = try await harness.serverMessages(group.id, as: harness.reader(of: bob)).count
                #expect(Set(try await alice.approveDevice(bob2.deviceID)) == [dm.id, group.id])
                await alice.waitForOutbox()
                #expect(try await alice.pendingRecipients().isEmpty)
                // The approval is announced in the group (docs/spec/protocol.md §5.15), and that first
                // message after it rotates (§4.8): a new key to both of Bob's devices, never the old one.
                let announced = try await harness.serverMessages(group.id, as: harness.reader(of: bob))
                #expect(announced.count == before + 2)
                let skd = announced[before]
                #expect(skd.contentType == EnvelopeKind.senderKeyDistribution.contentType)
                #expect(try recipientDevices(of: skd) == [bob.deviceID, bob2.deviceID])
                guard case .group(let rotated) = try envelope(of: announced[before + 1]), case .group(let earlier) = try envelope(of: announced[before - 1]) else {
                    Issue.record("not group envelopes"); return
                }
                #expect(rotated.keyID != earlier.keyID && rotated.iteration == 0)

                try await alice.send(text: "dm three", to: dm.id)
                try await alice.send(text: "group three", to: group.id)
                await alice.waitForOutbox()
                let groupPosts = try await harness.serverMessages(group.id, as: harness.reader(of: bob))
                #expect(groupPosts.count == before + 3)
                guard case .group(let next) = try envelope(of: groupPosts[before + 2]) else { Issue.record("not a group envelope"); return }
                #expect(next.keyID == rotated.keyID && next.iteration == 1)
                #expect(try await readableTexts(bob2, dm.id) == ["dm three"])
                _ = try await bob2.acceptChannel(group.id)
                #expect(try await readableTexts(bob2, group.id) == ["group three"])
                #expect(try await readableTexts(bob, group.id) == ["group one", "group two", "group three"])
            }
        }

        @Test("held and declined survive a restart: neither forgotten nor silently approved")
        func declineSurvivesRestart() async throws {
            try await MessagingHarness.with { harness in
                let directory = FileManager.default.temporaryDirectory.appendingPathComponent("e2ee-recipients-\(UUID().uuidString)")
                try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
                defer { try? FileManager.default.removeItem(at: directory) }
                let key = StoreKey.random()
                let url = directory.appendingPathComponent("alice.sqlite")
                var alice = try await harness.registerWithDefaults("alice", store: try KeyStore.open(at: url, key: key))
                let bob = try await harness.registerWithDefaults("bob")
                let dm = try await alice.openDirectMessage(with: bob.userID)
                try await alice.send(text: "one", to: dm.id)
                await alice.waitForOutbox()
                let bob2 = try await harness.login("bob", configuration: MessagingHarness.recipientConfiguration)
                try await alice.send(text: "two", to: dm.id)
                await alice.waitForOutbox()

                func reopen() async throws -> Account {
                    await alice.shutdown()
                    let store = try KeyStore.open(at: url, key: key)
                    return try await Account.open(server: try await harness.client(restoring: store), store: store,
                                                  configuration: MessagingHarness.recipientConfiguration)
                }
                alice = try await reopen()
                let held = RecipientDevice(userID: bob.userID, deviceID: bob2.deviceID)
                #expect(try await alice.pendingRecipients() == [HeldRecipient(channelID: dm.id, device: held)])
                let stillHeld = try await alice.send(text: "three", to: dm.id)
                #expect(stillHeld.recipients.held == [held])
                #expect(stillHeld.recipients.surfaced.isEmpty)

                #expect(try await alice.declineDevice(bob2.deviceID) == [dm.id])
                alice = try await reopen()
                #expect(try await alice.pendingRecipients().isEmpty)
                let report = try await alice.send(text: "four", to: dm.id)
                await alice.waitForOutbox()
                #expect(report.recipients.isEmpty)
                let posted = try await harness.serverMessages(dm.id, as: harness.reader(of: bob))
                #expect(try recipientDevices(of: try #require(posted.last)) == [bob.deviceID])
                #expect(try await readableTexts(bob2, dm.id).isEmpty)
                await alice.shutdown()
            }
        }

        @Test("a new device of our own user is surfaced and held by default; the peer still gets the message")
        func ownNewDeviceIsHeld() async throws {
            try await MessagingHarness.with { harness in
                let alice = try await harness.registerWithDefaults("alice")
                let bob = try await harness.registerWithDefaults("bob")
                let group = try await alice.createGroup(name: "team", members: [bob.userID])
                try await harness.accept(group, on: [bob])
                try await alice.send(text: "one", to: group.id)
                await alice.waitForOutbox()

                let alice2 = try await harness.login("alice", configuration: MessagingHarness.recipientConfiguration)
                let events = alice.events()
                let report = try await alice.send(text: "two", to: group.id)
                await alice.waitForOutbox()
                let own = RecipientDevice(userID: alice.userID, deviceID: alice2.deviceID)
                #expect(report.recipients.held == [own])
                let surfaced = await firstEvent(in: events) { if case .identity(.recipientAdded) = $0 { true } else { false } }
                #expect(surfaced == .identity(.recipientAdded(channelID: group.id, userID: alice.userID, deviceID: alice2.deviceID, held: true)))
                #expect(try await readableTexts(bob, group.id) == ["one", "two"])
                #expect(try await readableTexts(alice2, group.id).isEmpty)
            }
        }

        @Test("a device list the core cannot read is a typed error for that channel only: nothing sent there, other channels go on")
        func unreadableDeviceListStopsOnlyItsChannel() async throws {
            try await MessagingHarness.with { harness in
                let alice = try await harness.registerWithDefaults("alice")
                let bob = try await harness.registerWithDefaults("bob")
                let carol = try await harness.registerWithDefaults("carol")
                let dm = try await alice.openDirectMessage(with: bob.userID)
                let group = try await alice.createGroup(name: "team", members: [carol.userID])
                try await harness.accept(group, on: [carol])
                // The server lists, for Bob, a bundle whose signed prekey signature does not verify.
                let forged = try await harness.injectDevice(into: bob.userID.rawValue)
                let identity = IdentityKeyPair()
                let spk = try SignedPrekey(id: 3, identity: identity, createdAt: 0)
                try await harness.reader(of: forged).uploadKeys(KeyBundleUpload(
                    deviceID: forged.deviceID, identityKey: identity.publicIdentity.base64, signedPreKey: spk.published.base64,
                    signedPreKeySignature: try SignedPrekey(id: 3, identity: IdentityKeyPair(), createdAt: 0).signatureBase64, oneTimePreKeys: []))

                let entry = try await alice.send(text: "for bob", to: dm.id)
                #expect(entry.state == .failed)
                #expect(entry.failureReason?.contains("unreadableDeviceList") == true)
                #expect(try await harness.serverMessages(dm.id, as: harness.reader(of: bob)).isEmpty)
                try await alice.send(text: "for carol", to: group.id)
                await alice.waitForOutbox()
                #expect(try await readableTexts(carol, group.id) == ["for carol"])
            }
        }
    }
}

extension IntegrationTests.RecipientAttackTests {
    @Test("the safety number covers the devices keys go to; the approval screen's number is the one after approval")
    func safetyNumberCoversApprovedDevices() async throws {
        try await MessagingHarness.with { harness in
            let (alice, bob, dm) = try await harness.dmAfterFirstContact()
            let before = try await alice.safetyNumber(with: bob.userID)
            #expect(try await alice.safetyNumberIfApproved(with: bob.userID) == before, "nothing held: the two numbers agree")
            let attacker = try await harness.injectDevice(into: bob.userID.rawValue)
            try await alice.send(text: "secret", to: dm.id)
            await alice.waitForOutbox()
            #expect(try await alice.pendingRecipients().map(\.device.deviceID) == [attacker.deviceID])
            #expect(try await alice.safetyNumber(with: bob.userID) == before)
            // The approval screen: the number as it will be, the held device in it.
            let ifApproved = try await alice.safetyNumberIfApproved(with: bob.userID)
            #expect(ifApproved.displayText != before.displayText)
            // Bob's phone has not held the device (he has not sent since), so its number counts
            // every device listed for him: the code Alice scans on the approval screen is the
            // one Bob's phone shows. (Whether Bob owns that device is his to see in his list.)
            let bobsView = try await bob.safetyNumberIfApproved(with: alice.userID)
            #expect(ifApproved.compare(scanned: bobsView.scannableForm) == .match)
            try await alice.approveDevice(attacker.deviceID)
            let after = try await alice.safetyNumber(with: bob.userID)
            #expect(after == ifApproved, "the approval screen showed the number the approval produces")
            try await alice.declineDevice(attacker.deviceID)
            #expect(try await alice.safetyNumberIfApproved(with: bob.userID) == before, "a declined device stays out of both numbers")
        }
    }
}
