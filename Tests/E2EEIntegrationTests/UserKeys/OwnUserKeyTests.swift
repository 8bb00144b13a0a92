import E2EECrypto
import E2EEDevServer
@_spi(StoreInternals) import E2EEKeyStore
import E2EEMessaging
import E2EETransport
import Foundation
import Testing

extension IntegrationTests {
    /// docs/spec/protocol.md §10.12–§10.13 (text 1.3, the own side for a single primary): a real
    /// `createUserKey` at registration, the primary's own renewal, the clock rules it obeys, and
    /// the stops of a restored or missing primary file (attacks K30, K31 of the linking proposal).
    @Suite("Own user key: the primary")
    struct OwnUserKeyTests {
        static let day: Int64 = 86_400

        @Test("register with a key: the record carries a verifying certificate at epoch 1 for 30 days, and Alice pins the key")
        func registerWithKey() async throws {
            try await MessagingHarness.with { harness in
                let scene = try await OwnUserKeyScene.make(harness)
                defer { scene.cleanUp() }
                let status = try await scene.bob.ownUserKey()
                #expect(status.role == .primary && status.epoch == 1 && status.primary == scene.bob.deviceID)
                let key = try #require(status.key)
                let listed = try #require(try await scene.listedCertificate(), "the server lists a certificate verifying for Bob's device")
                #expect(listed.epoch == 1)
                #expect(UserKey(publicKey: listed.userKey.rawRepresentation) == key)
                let left = Int64(listed.notAfter) - KeyedContact.wallClock()
                #expect(left > 29 * Self.day && left <= 30 * Self.day + 60)
                #expect(status.notAfter == Date(timeIntervalSince1970: TimeInterval(listed.notAfter)))
                // Logged before it was published: the file holds exactly that certificate.
                let contents = try scene.fileContents()
                #expect(contents.logs(certificate: listed.bytes) && contents.logCount == 1 && contents.epoch == 1)
                #expect(scene.primaryFile.isProtected)
                // Alice pinned the key at first contact.
                let info = try await scene.alice.userKey(of: scene.bob.userID)
                #expect(info.state == .pinned && info.key == key)
                #expect(try await scene.alice.linkedDevices(of: scene.bob.userID) == [scene.bob.deviceID])
            }
        }

        @Test("the user key's private half is nowhere in clear: not in the store's files, not in the primary file's bytes")
        func privateHalfSealed() async throws {
            try await MessagingHarness.with { harness in
                let scene = try await OwnUserKeyScene.make(harness)
                defer { scene.cleanUp() }
                let seed = try scene.fileContents().userKeySeed.unprotectedCopy()
                await scene.bob.shutdown()
                let paths = [scene.storeURL.path, scene.storeURL.path + "-wal", scene.primaryFile.url.path]
                var scanned = 0
                for path in paths {
                    guard let data = FileManager.default.contents(atPath: path) else { continue }
                    scanned += 1
                    #expect(Self.find(seed, in: [UInt8](data)) == false, "the seed is in clear in \(path)")
                }
                #expect(scanned >= 2)
            }
        }

        /// Whether `needle` occurs in `haystack`.
        static func find(_ needle: [UInt8], in haystack: [UInt8]) -> Bool {
            guard needle.count <= haystack.count else { return false }
            return (0...(haystack.count - needle.count)).contains { haystack[$0..<($0 + needle.count)].elementsEqual(needle) }
        }

        @Test("8 days on (22 days left in the listing) the primary renews itself at start-up; Alice sees no prompt and Bob reads her")
        func renewalAfterEightDays() async throws {
            try await MessagingHarness.with { harness in
                var scene = try await OwnUserKeyScene.make(harness)
                defer { scene.cleanUp() }
                let before = try #require(try await scene.listedCertificate())
                let log = EventLog(scene.alice)
                try await scene.restartBob(offset: 8 * Self.day)
                let after = try #require(try await scene.listedCertificate())
                #expect(after.notAfter > before.notAfter + UInt32(7 * Self.day), "a new certificate, 30 days from Bob's clock")
                #expect(after.epoch == 1 && after.userKey == before.userKey)
                #expect(try scene.fileContents().logCount == 2)
                #expect(try await scene.bob.ownUserKey().notAfter == Date(timeIntervalSince1970: TimeInterval(after.notAfter)))
                // Nothing more is due: a second run issues nothing.
                _ = try await scene.bob.renewOwnCertificate()
                #expect(try scene.fileContents().logCount == 2)

                let sent = try await scene.aliceSends("after the renewal")
                #expect(sent.recipients == [scene.bob.deviceID])
                #expect(await log.identity().filter(\.isKeyPrompt).isEmpty)
                let keyEvents = await log.userKeyEvents()
                #expect(keyEvents.isEmpty, "\(keyEvents)")
                #expect(try await readableTexts(scene.bob, scene.dm.id) == ["hello", "after the renewal"])
            }
        }

        @Test("K31: a user with one device who never posts renews past 60 days, each certificate 30 days from its issue")
        func neverPostsRenewsPastSixtyDays() async throws {
            try await MessagingHarness.with { harness in
                var scene = try await OwnUserKeyScene.make(harness)
                defer { scene.cleanUp() }
                var last = try #require(try await scene.listedCertificate()).notAfter
                for days: Int64 in [25, 50, 75] {
                    try await scene.restartBob(offset: days * Self.day)
                    let listed = try #require(try await scene.listedCertificate())
                    #expect(listed.notAfter > last, "renewed at day \(days)")
                    #expect(abs(Int64(listed.notAfter) - (KeyedContact.wallClock() + (days + 30) * Self.day)) < 120)
                    last = listed.notAfter
                }
                #expect(try scene.fileContents().logCount == 4)
                #expect(try await scene.bob.ownUserKey().issuingStopped == nil)
            }
        }

        @Test("K31: the clock gone back holds every renewal until confirmClock(); then the primary renews")
        func clockGoneBack() async throws {
            try await MessagingHarness.with { harness in
                var scene = try await OwnUserKeyScene.make(harness)
                defer { scene.cleanUp() }
                // 40 days ahead: the first certificate expired, a new one runs to +70 days.
                try await scene.restartBob(offset: 40 * Self.day)
                let ahead = try #require(try await scene.listedCertificate())
                #expect(Int64(ahead.notAfter) > KeyedContact.wallClock() + 69 * Self.day)
                // Back to the real time: 70 days ahead is beyond 45, so not current — but the
                // clock went back, and nothing is issued.
                try await scene.restartBob(offset: 0)
                let events = EventLog(scene.bob)
                await #expect(throws: MessagingError.clockNotConfirmed) { try await scene.bob.renewOwnCertificate() }
                try await scene.bob.sync()
                #expect(try scene.fileContents().logCount == 2)
                #expect(try await scene.listedCertificate() == ahead)
                #expect(await events.all().contains(.linking(.renewalHeldByClock)))

                try await scene.bob.confirmClock()
                let status = try await scene.bob.renewOwnCertificate()
                #expect(try scene.fileContents().logCount == 3)
                let renewed = try #require(try await scene.listedCertificate())
                #expect(Int64(renewed.notAfter) <= KeyedContact.wallClock() + 30 * Self.day + 60)
                #expect(status.notAfter == Date(timeIntervalSince1970: TimeInterval(renewed.notAfter)))
                #expect(status.issuingStopped == nil, "its own older certificates are in the log: no anotherHolder")
            }
        }

        @Test("K31: a post whose server time is 2 days off this primary's clock makes it suspect: a due renewal issues nothing and says so")
        func suspectClock() async throws {
            try await MessagingHarness.with { harness in
                var scene = try await OwnUserKeyScene.make(harness)
                defer { scene.cleanUp() }
                let listed = try #require(try await scene.listedCertificate())
                // Bob's clock runs 2 days ahead of the server's when he posts: nothing is due yet.
                try await scene.restartBob(offset: 2 * Self.day)
                _ = try await KeyedContact.send("from a clock 2 days ahead", from: scene.bob, to: scene.dm.id, harness: harness)
                #expect(try await scene.listedCertificate() == listed)
                // 8 days on, a renewal is due, and held.
                try await scene.restartBob(offset: 8 * Self.day)
                let events = EventLog(scene.bob)
                await #expect(throws: MessagingError.clockNotConfirmed) { try await scene.bob.renewOwnCertificate() }
                #expect(await events.all().contains(.linking(.renewalHeldByClock)))
                #expect(try await scene.listedCertificate() == listed)
                #expect(try scene.fileContents().logCount == 1)
                try await scene.bob.confirmClock()
                _ = try await scene.bob.renewOwnCertificate()
                #expect(try await scene.listedCertificate()?.notAfter ?? 0 > listed.notAfter)
            }
        }

        @Test("K30: a primary file restored from an older copy (the store's mirror ahead) stops issuing: restoredFile")
        func restoredFile() async throws {
            try await MessagingHarness.with { harness in
                var scene = try await OwnUserKeyScene.make(harness)
                defer { scene.cleanUp() }
                let older = try Data(contentsOf: scene.primaryFile.url)
                try await scene.restartBob(offset: 8 * Self.day)
                #expect(try scene.fileContents().logCount == 2)
                let listed = try await scene.listedCertificate()
                await scene.bob.shutdown()
                try older.write(to: scene.primaryFile.url)

                try await scene.restartBob(offset: 16 * Self.day)
                let status = try await scene.bob.ownUserKey()
                #expect(status.issuingStopped == .restoredFile)
                await #expect(throws: MessagingError.issuingStopped(.restoredFile)) { try await scene.bob.renewOwnCertificate() }
                #expect(try scene.fileContents().logCount == 1, "the restored file was not written")
                #expect(try await scene.listedCertificate() == listed, "nothing new published")
                #expect(status.role == .primary, "still the primary, linked until its certificate ends")
            }
        }

        @Test("K30: a primary store without its file (as after restoring a backup) stops issuing: fileMissing")
        func fileMissing() async throws {
            try await MessagingHarness.with { harness in
                var scene = try await OwnUserKeyScene.make(harness)
                defer { scene.cleanUp() }
                await scene.bob.shutdown()
                try scene.primaryFile.remove()
                let listed = try await scene.listedCertificate()
                try await scene.restartBob(offset: 8 * Self.day)
                #expect(try await scene.bob.ownUserKey().issuingStopped == .fileMissing)
                await #expect(throws: MessagingError.issuingStopped(.fileMissing)) { try await scene.bob.renewOwnCertificate() }
                #expect(!scene.primaryFile.exists)
                #expect(try await scene.listedCertificate() == listed)
            }
        }

        @Test("K30: a current certificate under our key that the log lacks, in our own listing, stops issuing: anotherHolder")
        func anotherHolder() async throws {
            try await MessagingHarness.with { harness in
                var scene = try await OwnUserKeyScene.make(harness)
                defer { scene.cleanUp() }
                // A copy of the key certifies a login of Bob's (its own SIG publishes it).
                let laptop = try await harness.login("bob", configuration: MessagingHarness.recipientConfiguration)
                let copy = try scene.fileContents().userKey()
                try await KeyedContact.certify(laptop, by: copy, notAfter: UInt32(KeyedContact.wallClock() + 20 * Self.day))
                let events = EventLog(scene.bob)
                await #expect(throws: MessagingError.issuingStopped(.anotherHolder)) { try await scene.bob.renewOwnCertificate() }
                #expect(await events.all().contains(.linking(.issuingStopped(.anotherHolder))))
                try await scene.restartBob(offset: 8 * Self.day)
                #expect(try await scene.bob.ownUserKey().issuingStopped == .anotherHolder)
                #expect(try scene.fileContents().logCount == 1, "nothing issued after the stop")
            }
        }

        @Test("a renewal whose file cannot be kept out of backups issues and publishes nothing (the file is saved before anything leaves)")
        func renewalRefusedWithoutExclusion() async throws {
            try await MessagingHarness.with { harness in
                var scene = try await OwnUserKeyScene.make(harness)
                defer { scene.cleanUp() }
                let listed = try await scene.listedCertificate()
                await scene.bob.shutdown()
                // The tag's place taken by a directory: it can be neither found nor written.
                let tag = scene.primaryFile.directory.appendingPathComponent("CACHEDIR.TAG")
                try FileManager.default.removeItem(at: tag)
                try FileManager.default.createDirectory(at: tag, withIntermediateDirectories: false)
                try await scene.restartBob(offset: 8 * Self.day)
                await #expect(throws: MessagingError.primaryFileUnprotected) { try await scene.bob.renewOwnCertificate() }
                #expect(try scene.fileContents().logCount == 1)
                #expect(try await scene.listedCertificate() == listed, "nothing published")
                #expect(try await scene.bob.ownUserKey().issuingStopped == nil, "not a stop: fixed, the next renewal issues")
                try FileManager.default.removeItem(at: tag)
                _ = try await scene.bob.renewOwnCertificate()
                #expect(try scene.fileContents().logCount == 2)
                #expect(scene.primaryFile.isProtected)
            }
        }

        @Test("connected, the primary renews on its own timer: a renewal the keychain held back at start-up and catch-up is issued later")
        func renewalTimer() async throws {
            try await MessagingHarness.with { harness in
                var scene = try await OwnUserKeyScene.make(harness)
                defer { scene.cleanUp() }
                let listed = try #require(try await scene.listedCertificate())
                scene.keychain.withhold(true)  // a locked keychain: start-up and catch-up renewals fail
                try await scene.restartBob(offset: 8 * Self.day, renewalInterval: .milliseconds(200))
                #expect(try await scene.listedCertificate() == listed)
                let bob = scene.bob
                // One catch-up on connecting, the follow-up a minute later: none runs in this test's window.
                var policy = ConnectionPolicy.standard
                policy.followUpCatchUp = .seconds(60)
                policy.membershipWatchInterval = nil
                await bob.connect(using: WebSocketRealtimeConnector(webSocketURL: harness.server.webSocketURL), policy: policy)
                let caughtUp = await eventually(within: .seconds(10)) {
                    await bob.channelSyncFailures().contains { $0.channelID == nil && $0.reason.contains("keyUnavailable") }
                }
                let failures = await bob.channelSyncFailures()
                #expect(caughtUp, "the connection's catch-up ran its renewal, which failed: \(failures)")
                #expect(try await scene.listedCertificate() == listed)
                scene.keychain.withhold(false)
                let renewed = await eventually(within: .seconds(5)) {
                    (try? await scene.listedCertificate())?.notAfter ?? 0 > listed.notAfter
                }
                #expect(renewed, "the timer renewed without any catch-up")
                #expect(try scene.fileContents().logCount == 2)
                await bob.shutdown()
            }
        }

        @Test("createUserKey refuses where the file cannot be kept: no keychain, a store in memory, no backup exclusion")
        func primaryFileUnprotected() async throws {
            try await MessagingHarness.with { harness in
                let noKeychain = try await harness.register("carol")
                await #expect(throws: MessagingError.primaryFileUnprotected) { try await noKeychain.createUserKey() }
                var configuration = MessagingHarness.testConfiguration
                configuration.primaryFileKeychain = MemoryKeychain()
                let inMemory = try await harness.register("dave", configuration: configuration)
                await #expect(throws: MessagingError.primaryFileUnprotected) { try await inMemory.createUserKey() }

                let directory = FileManager.default.temporaryDirectory.appendingPathComponent("e2ee-own-key-\(UUID().uuidString)", isDirectory: true)
                try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
                defer { try? FileManager.default.removeItem(at: directory) }
                let storeURL = directory.appendingPathComponent("erin.sqlite")
                // The file's directory cannot be made: its place is taken.
                try Data("x".utf8).write(to: URL(fileURLWithPath: storeURL.path + ".primary"))
                let erin = try await harness.register("erin", store: try KeyStore.open(at: storeURL, key: .random()), configuration: configuration)
                await #expect(throws: MessagingError.primaryFileUnprotected) { try await erin.createUserKey() }
                #expect(try await erin.ownUserKey().role == .noKey)
                #expect(try await noKeychain.ownUserKey().role == .noKey)
                #expect(try await inMemory.ownUserKey().role == .noKey)
                await #expect(throws: MessagingError.notPrimary) { try await erin.renewOwnCertificate() }
            }
        }
    }
}
