import E2EECrypto
import E2EEDevServer
import E2EEKeyStore
import E2EEMessaging
import E2EETransport
import Foundation
import Testing

extension IntegrationTests {
    /// Identities against a server that lies (THREATS T2, T14; docs/spec/protocol.md §7).
    @Suite("Identities")
    struct IdentityTests {
        @Test("T2: a bundle whose signed prekey signature fails gets no session and no message")
        func swappedSignedPrekeyIsRefused() async throws {
            try await MessagingHarness.with { harness in
                let alice = try await harness.register("alice")
                let bobStore = try KeyStore.inMemory()
                let bobClient = harness.client(store: bobStore)
                let bobTokens = try await bobClient.register(username: "bob", password: "password123", deviceName: "phone")
                // The server hands out a signed prekey the identity never signed.
                let identity = IdentityKeyPair()
                let signed = try SignedPrekey(id: 7, identity: identity, createdAt: 0)
                let forged = try SignedPrekey(id: 7, identity: IdentityKeyPair(), createdAt: 0)
                try await bobClient.uploadKeys(KeyBundleUpload(
                    deviceID: bobTokens.deviceID, identityKey: identity.publicIdentity.base64, signedPreKey: signed.published.base64,
                    signedPreKeySignature: forged.signatureBase64, oneTimePreKeys: []))
                let events = alice.events()
                let dm = try await alice.openDirectMessage(with: bobTokens.userID)
                let entry = try await alice.send(text: "for bob", to: dm.id)
                #expect(entry.state == .failed)
                #expect(try await harness.serverMessages(dm.id, as: bobClient).isEmpty)
                #expect(try await alice.store.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM sessions") } == 0)
                #expect(await firstEvent(in: events) { if case .inputRefused = $0 { true } else { false } } != nil)
            }
        }

        @Test("T2: a pinned device that presents another identity is reported, recorded, and sent nothing")
        func changedIdentityIsSurfacedNotTrusted() async throws {
            try await MessagingHarness.with { harness in
                let alice = try await harness.register("alice")
                let bob = try await harness.register("bob")
                let bob2 = try await harness.login("bob")
                let dm = try await alice.openDirectMessage(with: bob.userID)
                try await alice.send(text: "pinned", to: dm.id)
                await alice.waitForOutbox()

                // The server swaps bob's identity for one it controls (same device id).
                let mallory = IdentityKeyPair()
                let spk = try SignedPrekey(id: 9, identity: mallory, createdAt: 0)
                try await harness.reader(of: bob).uploadKeys(KeyBundleUpload(
                    deviceID: bob.deviceID, identityKey: mallory.publicIdentity.base64, signedPreKey: spk.published.base64,
                    signedPreKeySignature: spk.signatureBase64, oneTimePreKeys: []))
                let events = alice.events()
                let devices = try await alice.devices(of: bob.userID)
                #expect(devices.map(\.deviceID) == [bob2.deviceID])
                let changed = await firstEvent(in: events) { if case .identity(.identityChanged) = $0 { true } else { false } }
                #expect(changed == .identity(.identityChanged(userID: bob.userID, deviceID: bob.deviceID)))
                let recorded = try await alice.identityChanges(of: bob.userID)
                #expect(recorded.count == 1)
                #expect(recorded.first?.presentedIdentity == mallory.publicIdentity.bytes)

                try await alice.send(text: "after the swap", to: dm.id)
                await alice.waitForOutbox()
                let last = try #require(try await harness.serverMessages(dm.id, as: harness.reader(of: bob2)).last)
                #expect(try recipientDevices(of: last) == [bob2.deviceID])
            }
        }

        @Test("T14: safety numbers agree on both sides, cover every device, and change with a new one")
        func safetyNumbersCoverAllDevices() async throws {
            try await MessagingHarness.with { harness in
                let alice = try await harness.register("alice")
                let bob = try await harness.register("bob")
                let events = alice.events()
                let fromAlice = try await alice.safetyNumber(with: bob.userID)
                let fromBob = try await bob.safetyNumber(with: alice.userID)
                #expect(fromAlice.displayText == fromBob.displayText)
                #expect(fromAlice.digitGroups.count == 12)
                #expect(fromAlice.displayText.split(separator: " ").count == 12)
                // Each scans the other's code: both match.
                #expect(fromAlice.compare(scanned: fromBob.scannableForm) == .match)
                #expect(fromBob.compare(scannedText: fromAlice.scannableText) == .match)
                // A device's own code is not the other side's.
                #expect(fromAlice.compare(scanned: fromAlice.scannableForm) == .mismatch)

                let bob2 = try await harness.login("bob")
                let afterNewDevice = try await alice.safetyNumber(with: bob.userID)
                #expect(afterNewDevice.displayText != fromAlice.displayText)
                #expect(try await bob2.safetyNumber(with: alice.userID).displayText == afterNewDevice.displayText)
                #expect(afterNewDevice.compare(scanned: fromBob.scannableForm) == .mismatch, "a code from before the new device must not verify")
                let newDevice = await firstEvent(in: events) {
                    if case .identity(.newDevice(_, let device)) = $0 { device == bob2.deviceID } else { false }
                }
                #expect(newDevice != nil)
            }
        }
    }
}

/// The first event matching `predicate` (waits at most `within` seconds).
func firstEvent(in events: AsyncStream<AccountEvent>, within seconds: Double = 2,
                where predicate: @escaping @Sendable (AccountEvent) -> Bool) async -> AccountEvent? {
    await withTaskGroup(of: AccountEvent?.self) { group in
        group.addTask {
            for await event in events where predicate(event) { return event }
            return nil
        }
        group.addTask {
            try? await Task.sleep(nanoseconds: UInt64(seconds * 1_000_000_000))
            return nil
        }
        let first = await group.next() ?? nil
        group.cancelAll()
        return first
    }
}
