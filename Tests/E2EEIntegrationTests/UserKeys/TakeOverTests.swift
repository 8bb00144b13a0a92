import E2EECrypto
import E2EEDevServer
@_spi(StoreInternals) import E2EEKeyStore
@testable import E2EEMessaging
import Foundation
import Testing

extension IntegrationTests {
    /// docs/spec/protocol.md §10.15 against the development server: Bob's primary P loses its
    /// login, Bob logs in again on the same installation (a new device N over a new store file
    /// beside P's, the same keychain), and N takes over P's primary file — attacks K27 and K28
    /// of the linking proposal.
    @Suite("Take-over after a new login")
    struct TakeOverTests {
        /// How P's login ends in K27.
        enum LoginEnd: Sendable {
            /// P's user logs out (its tokens end, its device stays listed — what a refresh
            /// token that ran out after 7 days also leaves).
            case loggedOut
            /// The linked laptop deletes P on the server.
            case deletedByLaptop
            /// The server's clock moves 8 days ahead while P is away: its refresh token (7 days)
            /// runs out, while the laptop and Alice, active half-way, keep theirs.
            case refreshExpired
        }

        @Test("K27: P logged out: after a new login and takeOverPrimary, the laptop and Alice see P unlinked and N linked under the same key; the laptop takes the recert from N")
        func takeOverAfterLogout() async throws {
            try await MessagingHarness.with { harness in try await Self.takeOver(after: .loggedOut, harness: harness) }
        }

        @Test("K27: the laptop deletes P: after a new login and takeOverPrimary, the laptop and Alice see N linked under the same key; the laptop takes the recert from N")
        func takeOverAfterDelete() async throws {
            try await MessagingHarness.with { harness in try await Self.takeOver(after: .deletedByLaptop, harness: harness) }
        }

        @Test("K27: the server clock 8 days ahead ends P's login (its refresh token ran out): after a new login and takeOverPrimary, the laptop and Alice see N linked under the same key")
        func takeOverAfterRefreshExpired() async throws {
            try await MessagingHarness.with(.testing(clock: .shifting())) { harness in try await Self.takeOver(after: .refreshExpired, harness: harness) }
        }

        @Test("K28: the old primary returns after Bob reset on the laptop: the take-over names the laptop and stops; K1 is not renewed and Alice's gate stays where it was")
        func returnAfterReset() async throws {
            try await MessagingHarness.with { harness in
                let scene = try await OwnUserKeyScene.make(harness)
                defer { scene.cleanUp() }
                let laptop = try await ResetTests.loginOnDisk("laptop", scene: scene, harness: harness)
                try await ResetTests.linkFully(laptop, to: scene.bob)
                let oldKey = try #require(try await scene.bob.ownUserKey().key)
                _ = try await scene.aliceSends("with the laptop linked")
                let seenUntil = try await scene.alice.userKey(of: scene.bob.userID).seenUntil
                let before = try scene.fileContents()

                // The phone is lost: Bob resets on the laptop (K2), deleting it on the server.
                try await laptop.resetUserKey(removing: [scene.bob.deviceID])
                let newKey = try #require(try await laptop.ownUserKey().key)
                await scene.bob.shutdown()

                // The phone's installation comes back with a new login, which tries to take over.
                let returned = try await ResetTests.loginOnDisk("returned", scene: scene, harness: harness)
                #expect(try await returned.ownUserKey().role == .unlinked)
                let outcome = try await returned.takeOverPrimary(from: scene.bob.store)
                #expect(outcome == .anotherKeyListed(keys: [newKey], carriers: [laptop.deviceID]), "\(outcome)")

                // Nothing was issued under K1: the old file as it was, nothing listed for the new login.
                let after = try? scene.fileContents()
                #expect(after?.epoch == before.epoch && after?.logCount == before.logCount, "the old file changed or went")
                #expect(try await returned.ownUserKey().role == .unlinked)
                #expect(try await KeptRenewalTests.listedCertificate(of: returned, harness: harness) == nil, "a K1 certificate was listed")
                #expect(!FileManager.default.fileExists(atPath: PrimaryFile(storePath: returned.store.path ?? "").url.path))

                // Alice reads Bob's devices: nothing under K1 to send to, and her gate has not moved.
                let sent = try await scene.aliceSends("after the return")
                #expect(!(sent.recipients ?? []).contains(returned.deviceID), "Alice sent to the returned login")
                let info = try await scene.alice.userKey(of: scene.bob.userID)
                #expect(info.key == oldKey && info.seenUntil == seenUntil, "Alice's gate moved: \(String(describing: info.seenUntil)) from \(String(describing: seenUntil))")
                await returned.shutdown()
                await laptop.shutdown()
                await scene.alice.shutdown()
            }
        }

        @Test("K28: a device the server made under its own key: the take-over names no device and stops; the user goes on and takes over")
        func serverKeyNamesNoDevice() async throws {
            try await MessagingHarness.with { harness in
                let scene = try await OwnUserKeyScene.make(harness)
                defer { scene.cleanUp() }
                let laptop = try await harness.login("bob", configuration: MessagingHarness.recipientConfiguration)
                try await ResetTests.linkFully(laptop, to: scene.bob)
                let added = try await harness.injectDevice(into: scene.bob.userID.rawValue)
                let serverKey = Ed25519.PrivateKey()
                _ = try await KeyedContact.certify(added, by: serverKey, notAfter: UInt32(KeyedContact.wallClock() + 20 * KeyedContact.day))
                try await scene.bob.logout()
                await scene.bob.shutdown()

                let newLogin = try await ResetTests.loginOnDisk("new-login", scene: scene, harness: harness)
                let stopped = try await newLogin.takeOverPrimary(from: scene.bob.store)
                #expect(stopped == .anotherKeyListed(keys: [try KeyedContact.userKey(serverKey)], carriers: []), "\(stopped)")
                #expect(try scene.fileContents().epoch == 1, "the stop changed the file")

                // Sure that no reset was made, the user goes on.
                let outcome = try await newLogin.takeOverPrimary(from: scene.bob.store, ignoringAnotherKey: true)
                #expect(outcome == .tookOver(removed: scene.bob.deviceID, epoch: 2), "\(outcome)")
                #expect(try await newLogin.ownUserKey().role == .primary)
                await added.shutdown()
                await newLogin.shutdown()
                await laptop.shutdown()
                await scene.alice.shutdown()
            }
        }

        /// K27 with P's login ended by `end`.
        static func takeOver(after end: LoginEnd, harness: MessagingHarness) async throws {
            let scene = try await OwnUserKeyScene.make(harness)
            defer { scene.cleanUp() }
            let laptop = try await harness.login("bob", configuration: MessagingHarness.recipientConfiguration)
            try await ResetTests.linkFully(laptop, to: scene.bob)
            let key = try #require(try await scene.bob.ownUserKey().key)
            let phone = scene.bob.deviceID
            switch end {
            case .loggedOut:
                try await scene.bob.logout()
                await scene.bob.shutdown()
            case .deletedByLaptop:
                await scene.bob.shutdown()
                try await harness.reader(of: laptop).deleteDevice(id: phone)
            case .refreshExpired:
                await scene.bob.shutdown()
                harness.server.clock.advance(by: .seconds(4 * 86_400))
                try await laptop.sync()
                try await scene.alice.sync()
                harness.server.clock.advance(by: .seconds(4 * 86_400))
                // Their own clients refresh first (a reader client refreshing the same token
                // first would end theirs: refresh tokens rotate).
                try await laptop.sync()
                try await scene.alice.sync()
                await #expect(throws: ServerError.self, "setting up: P's login did not end") {
                    try await harness.client(restoring: scene.bob.store).bundles(userID: scene.bob.userID)
                }
            }

            let newLogin = try await ResetTests.loginOnDisk("new-login", scene: scene, harness: harness)
            #expect(try await newLogin.ownUserKey().role == .unlinked, "setting up: a login beside a keyed account is unlinked")
            let aliceLog = EventLog(scene.alice)
            let laptopLog = EventLog(laptop)
            let outcome = try await newLogin.takeOverPrimary(from: scene.bob.store)
            #expect(outcome == .tookOver(removed: phone, epoch: 2), "\(outcome)")
            await newLogin.waitForOutbox()

            // The new login is the primary of the same key, its file beside its own store.
            let status = try await newLogin.ownUserKey()
            #expect(status.role == .primary && status.key == key && status.epoch == 2 && status.primary == newLogin.deviceID)
            #expect(!scene.primaryFile.exists, "the old file is still there")
            let keychainKey = try #require(try scene.keychain.key(item: PrimaryFile.keychainItem(userID: scene.bob.userID.rawValue), create: false))
            let contents = try PrimaryFile(storePath: try #require(newLogin.store.path)).load(key: keychainKey)
            #expect(Set(contents.kept) == [laptop.deviceID.rawValue, newLogin.deviceID.rawValue] && contents.removed == [phone.rawValue])
            #expect(contents.removal == nil, "the removal did not finish")
            // Carried locally: the DM's history and standing.
            #expect(try await TimelineChecks.readableTexts(newLogin, scene.dm.id).contains("hello"), "the history was not carried")

            // The laptop takes the recert from the new login, which becomes its primary.
            let adopted = await eventually(within: .seconds(30)) {
                try? await laptop.sync()
                return (try? await KeptRenewalTests.listedCertificate(of: laptop, harness: harness))?.epoch == 2
            }
            let laptopStatus = try await laptop.ownUserKey()
            let laptopEvents = await laptopLog.all()
            #expect(adopted, "the laptop never adopted its recert: \(laptopStatus) \(laptopEvents)")
            #expect(try await laptop.ownUserKey().primary == newLogin.deviceID)
            let listed = try await harness.reader(of: laptop).bundles(userID: scene.bob.userID).map(\.deviceID)
            #expect(!listed.contains(phone), "the old phone is still listed")

            // Alice: the new login linked, the phone not, and no key change.
            let aliceSent = try await scene.aliceSends("after the take-over")
            #expect(aliceSent.recipients == [laptop.deviceID, newLogin.deviceID], "\(String(describing: aliceSent.recipients)) \(String(describing: aliceSent.report.failureReason))")
            #expect(await aliceLog.identity().filter(\.isKeyPrompt).isEmpty, "Alice was prompted about Bob's key")
            #expect(try await scene.alice.userKey(of: scene.bob.userID).key == key)
            #expect(await aliceLog.identity().contains(.linkedDeviceAdded(userID: scene.bob.userID, deviceID: newLogin.deviceID)))
            // The laptop: the new login linked, the phone not.
            let laptopSent = try await KeyedContact.send("from the laptop", from: laptop, to: scene.dm.id, harness: harness)
            #expect(laptopSent.recipients == [scene.alice.deviceID, newLogin.deviceID], "\(String(describing: laptopSent.recipients))")
            // The new login reads both.
            let read = await eventually(within: .seconds(30)) {
                try? await newLogin.sync()
                let texts = (try? await TimelineChecks.readableTexts(newLogin, scene.dm.id)) ?? []
                return texts.contains("after the take-over") && texts.contains("from the laptop")
            }
            #expect(read, "the new login did not read what Alice and the laptop sent")
            await newLogin.shutdown()
            await laptop.shutdown()
            await scene.alice.shutdown()
        }
    }
}
