import E2EECrypto
import E2EEDevServer
import E2EEKeyStore
import E2EEMessaging
import Foundation
import Testing

extension IntegrationTests {
    /// docs/spec/protocol.md §10.8 (text 1.3), attack K9 of the linking proposal: Bob resets his
    /// user key on his laptop L (L now carries K2) while his phone P's record under K1 stays as it
    /// was. L's prekey messages to Alice wait, unlinked, through the §10.17 gate and past 30 days
    /// — across Alice's signed-prekey rotations — and decrypt when she accepts K2: the signed
    /// prekey they name is kept while they wait, past its own 30 days.
    @Suite("A contact's reset, seen by a prekey message that waits")
    struct ResetPrekeyWaitTests {
        static let day = KeyedContact.day

        /// `laptop` sends each of `texts` in `dm` and waits for its outbox.
        static func send(_ texts: [String], from laptop: Account, in dm: ChatChannel) async throws {
            for text in texts {
                let report = try await laptop.send(text: text, to: dm.id)
                #expect(report.state != .failed, "\(report.failureReason ?? "")")
            }
            await laptop.waitForOutbox()
        }

        /// Alice's clocks moved day by day through `days`, catching up at each; returns her account.
        static func live(_ alice: Account, through days: [Double], harness: MessagingHarness) async throws -> Account {
            var alice = alice
            for day in days { alice = try await MovedClock.reopen(alice, daysAhead: day, harness: harness) }
            return alice
        }

        @Test("K9: L carries K2 while P's K1 record stays: L's prekey messages wait 36 days across Alice's SPK rotations and decrypt when she accepts K2")
        func resetSeenByAContact() async throws {
            try await MessagingHarness.with { harness in
                let start = KeyedContact.wallClock()
                var alice = try await harness.register("alice", configuration: MovedClock.configuration(offset: 0))
                let phone = try await harness.registerWithDefaults("bob")
                let laptop = try await harness.login("bob", configuration: MessagingHarness.recipientConfiguration)
                let bob = phone.userID
                // K1's certificates end on day 35 (plus an hour): §10.17's gate opens then.
                let k1 = Ed25519.PrivateKey(), k2 = Ed25519.PrivateKey()
                let k1End = UInt32(start + 35 * Self.day + 3_600)
                try await KeyedContact.certify(phone, by: k1, notAfter: k1End)
                try await KeyedContact.certify(laptop, by: k1, notAfter: k1End)

                // P writes first; Alice accepts: K1 pinned, P and L linked. Alice writes nothing,
                // so L has no session with her: its first messages will be prekey messages.
                let dm = try await phone.openDirectMessage(with: alice.userID)
                try await Self.send(["hello from P"], from: phone, in: dm)
                _ = try await alice.openDirectMessage(with: bob)
                #expect(try await readableTexts(alice, dm.id) == ["hello from P"])
                #expect(try await alice.userKey(of: bob).key == KeyedContact.userKey(k1))
                #expect(Set(try await alice.linkedDevices(of: bob)) == [phone.deviceID, laptop.deviceID])

                // Bob resets on L: L now publishes a certificate under K2, current to day 44.
                try await KeyedContact.certify(laptop, by: k2, notAfter: UInt32(start + 44 * Self.day))
                // Alice reads Bob's listing (as any send of hers would): L is unlinked now, replaced.
                _ = try await alice.devices(of: bob)
                #expect(try await alice.linkedDevices(of: bob) == [phone.deviceID])
                // Day 6 by Alice's clocks: L writes. Its messages name Alice's signed prekey of day 0.
                alice = try await MovedClock.reopen(alice, daysAhead: 6, harness: harness)
                let named = try #require(try await alice.keyStatus().signedPrekeyID)
                _ = try await laptop.openDirectMessage(with: alice.userID)
                try await Self.send(["from L after the reset", "and again"], from: laptop, in: dm)
                try await alice.sync()
                let waiting = "unlinked:\(bob)/\(laptop.deviceID)"
                #expect(try await MovedClock.unlinkedWaits(alice) == [waiting, waiting])
                #expect(try await Self.namedSignedPrekeys(alice) == [named])

                // Alice's signed prekey is replaced on day 7.5 and weekly after it.
                alice = try await Self.live(alice, through: [7.5, 14.5, 21.5, 28.5], harness: harness)
                #expect(try await alice.keyStatus().signedPrekeyID != named)
                #expect(try await MovedClock.unlinkedWaits(alice).count == 2)

                // Day 35.5: past K1's seen_until + 600 s on a confirmed clock, the change is due (29.5 days of waiting).
                alice = try await MovedClock.reopen(alice, daysAhead: 35.5, harness: harness)
                let blocked = try await alice.send(text: "to Bob", to: dm.id)
                #expect(blocked.state == .failed && blocked.failureReason?.contains("userKeyChangePending") == true, "\(blocked.failureReason ?? "sent")")
                #expect(try await alice.userKey(of: bob).change?.to == KeyedContact.userKey(k2))

                // Day 38: the day-0 prekey, replaced on day 7.5, is past its 30 days; the waiting messages keep it.
                alice = try await MovedClock.reopen(alice, daysAhead: 38, harness: harness)
                #expect(try await MovedClock.signedPrekeyIDs(alice).contains(named), "the signed prekey a waiting message names was wiped")
                #expect(try await MovedClock.unlinkedWaits(alice).count == 2)

                // Day 42, 36 days after they arrived: Alice accepts K2, and L's messages decrypt.
                alice = try await MovedClock.reopen(alice, daysAhead: 42, harness: harness)
                #expect(try await MovedClock.unlinkedWaits(alice).count == 2, "still waiting at acceptance")
                try await alice.acceptUserKeyChange(of: bob)
                // (Alice's own blocked message stays in her outbox as failed.)
                #expect(try await readableTexts(alice, dm.id).filter { $0 != "to Bob" } == ["hello from P", "from L after the reset", "and again"])
                #expect(try await MovedClock.unlinkedWaits(alice).isEmpty)
                #expect(try await alice.linkedDevices(of: bob) == [laptop.deviceID])
                await alice.shutdown()
            }
        }

        /// The signed prekey ids that `account`'s waiting messages name in their entry for it.
        static func namedSignedPrekeys(_ account: Account) async throws -> Set<UInt32> {
            let contents = try await account.store.read { db in
                try String.fetchAll(db, sql: "SELECT content FROM pending_ciphertexts WHERE waiting_for LIKE 'unlinked:%'")
            }
            let device = try WireUUID(text: account.deviceID.rawValue)
            var ids: Set<UInt32> = []
            for content in contents {
                guard case .dm(let dm) = try Envelope.decode(try Base64.decode(content, maxEncodedLength: ProtocolLimits.maxContentBase64Length)),
                      case .prekey(let message) = try PairwiseMessage(bytes: try dm.pairwiseMessage(for: device)) else { continue }
                ids.insert(message.signedPrekeyID)
            }
            return ids
        }
    }
}
