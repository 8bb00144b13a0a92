import E2EECrypto
import E2EEDevServer
@_spi(StoreInternals) import E2EEKeyStore
@testable import E2EEMessaging
import Foundation
import Testing

extension IntegrationTests {
    /// docs/spec/protocol.md §10.13 for the devices the primary keeps, against the development
    /// server: the primary renews a linked laptop with a `recert` over their ratchet, the laptop
    /// adopts it under "Adopting a certificate" and republishes; a laptop whose primary stays
    /// away warns; another own device replaying the laptop's certificate is not its primary.
    @Suite("Renewing linked devices")
    struct KeptRenewalTests {
        static let day: Int64 = 86_400

        @Test("K33: the primary offline 31 days — the laptop warns at under 7 days left; the primary back renews both, the laptop adopts its recert")
        func expiryWarningThenBothRenewed() async throws {
            try await MessagingHarness.with { harness in
                var scene = try await OwnUserKeyScene.make(harness)
                defer { scene.cleanUp() }
                var laptop = try await harness.login("bob", configuration: MessagingHarness.recipientConfiguration)
                let linkEvents = EventLog(laptop)
                try await LinkCeremonyIntegrationTests.link(laptop, to: scene.bob)
                // The transfer done and every post out: a primary back 31 days later has nothing
                // else to post (the server's clock does not move, so a post then makes it suspect).
                try await LinkCeremonyIntegrationTests.pump(scene.bob, laptop, until: linkEvents) {
                    if case .linking(.trustTransferred) = $0 { true } else { false }
                }
                await laptop.waitForOutbox()
                try await scene.bob.sync()
                await scene.bob.waitForOutbox()
                let granted = try #require(try await laptop.ownUserKey().notAfter)
                let laptopListed = try #require(try await Self.listedCertificate(of: laptop, harness: harness))
                await scene.bob.shutdown()

                // 24 days on, the primary still away: 6 days left, the laptop warns.
                laptop = try await Self.reopen(laptop, offset: 24 * Self.day, harness: harness)
                let laptopEvents = EventLog(laptop)
                try await laptop.sync()
                let laptopSaw = await laptopEvents.all()
                #expect(laptopSaw.contains(.linking(.certificateExpiring(notAfter: granted))), "no expiry warning on the laptop: \(laptopSaw)")

                // 31 days on: both certificates ended; the primary starts and renews itself and the laptop.
                try await scene.restartBob(offset: 31 * Self.day)
                await scene.bob.waitForOutbox()
                let contents = try scene.fileContents()
                let laptopLogged = try #require(contents.newestEntry(for: laptop.deviceID.rawValue))
                #expect(Int64(laptopLogged.notAfter) > KeyedContact.wallClock() + 60 * Self.day, "the laptop renewed 30 days from the primary's clock")
                #expect(Int64(try #require(try await scene.listedCertificate()).notAfter) > KeyedContact.wallClock() + 60 * Self.day)

                laptop = try await Self.reopen(laptop, offset: 31 * Self.day, harness: harness)
                let reopened = laptop
                let adopted = await eventually(within: .seconds(10)) {
                    try? await reopened.sync()
                    let end = try? await reopened.ownUserKey().notAfter
                    return end.map { $0 > granted } ?? false
                }
                #expect(adopted, "the laptop did not adopt its recert")
                let status = try await laptop.ownUserKey()
                #expect(status.role == .linked && status.primary == scene.bob.deviceID)
                #expect(status.notAfter == Date(timeIntervalSince1970: TimeInterval(laptopLogged.notAfter)))
                let relisted = try #require(try await Self.listedCertificate(of: laptop, harness: harness))
                #expect(relisted.notAfter == laptopLogged.notAfter && relisted != laptopListed, "the laptop republished its new certificate")
                // Nothing more is due: a second run sends nothing new.
                let logCount = try scene.fileContents().logCount
                _ = try await scene.bob.renewOwnCertificate()
                #expect(try scene.fileContents().logCount == logCount)
                await laptop.shutdown()
                await scene.bob.shutdown()
                await scene.alice.shutdown()
            }
        }

        @Test("K23: an own device replaying the laptop's certificate as a recert does not become the laptop's primary")
        func replayedCertificateNamesNoPrimary() async throws {
            try await MessagingHarness.with { harness in
                let scene = try await OwnUserKeyScene.make(harness)
                defer { scene.cleanUp() }
                let laptop = try await harness.login("bob", configuration: MessagingHarness.recipientConfiguration)
                try await LinkCeremonyIntegrationTests.link(laptop, to: scene.bob)
                let published = try #require(try await Self.listedCertificate(of: laptop, harness: harness))
                let before = try await laptop.ownUserKey()
                #expect(before.primary == scene.bob.deviceID)

                // Another login of Bob's (unlinked: it may send link messages) replays it.
                let other = try await harness.login("bob", configuration: MessagingHarness.recipientConfiguration)
                let channel = try #require(try await other.devicesChannel(create: false))
                let seen = laptop.linkMessages()
                try await other.sendLinkMessage(.recert(certificate: published, primarySignature: [UInt8](repeating: 7, count: 64)),
                                                to: laptop.deviceID, in: channel)
                await other.waitForOutbox()
                try await laptop.sync()
                let opened = await withTaskGroup(of: OpenedLinkMessage?.self) { group in
                    group.addTask {
                        for await message in seen { if case .recert = message.plaintext { return message } }  // past the trust part
                        return nil
                    }
                    group.addTask {
                        try? await Task.sleep(for: .seconds(10))
                        return nil
                    }
                    let first = await group.next() ?? nil
                    group.cancelAll()
                    return first
                }
                #expect(opened?.senderDeviceID == other.deviceID, "the laptop never opened the replayed recert")
                try await Task.sleep(for: .milliseconds(500))  // the account's own listener acts on it meanwhile
                let after = try await laptop.ownUserKey()
                #expect(after.primary == scene.bob.deviceID, "the replaying device became the laptop's primary")
                #expect(after.notAfter == before.notAfter && after.epoch == before.epoch)
                await other.shutdown()
                await laptop.shutdown()
                await scene.bob.shutdown()
                await scene.alice.shutdown()
            }
        }

        /// Closes `account` and opens its store again with both clocks `offset` seconds ahead.
        static func reopen(_ account: Account, offset: Int64, harness: MessagingHarness) async throws -> Account {
            await account.shutdown()
            return try await Account.open(server: try await harness.client(restoring: account.store), store: account.store,
                                          configuration: MovedClock.configuration(offset: offset))
        }

        /// The certificate the server lists for `account`'s device, verified for its user.
        static func listedCertificate(of account: Account, harness: MessagingHarness) async throws -> DeviceCertificate? {
            let reader = try await harness.reader(of: account)
            let json = try await reader.bundle(deviceID: account.deviceID)
            let bundle = try PrekeyBundle(deviceID: json.deviceID.rawValue, identityKey: json.identityKey, signedPreKey: json.signedPreKey,
                                          signedPreKeySignature: json.signedPreKeySignature, oneTimePreKey: json.oneTimePreKey)
            return bundle.verifiedCertificate(forUser: try WireUUID(text: account.userID.rawValue))
        }
    }
}

struct KeptRenewalFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
