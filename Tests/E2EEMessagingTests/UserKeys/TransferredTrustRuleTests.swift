import E2EECrypto
import E2EEKeyStore
@testable import E2EEMessaging
import Foundation
import Testing

/// The trust part of a transfer as the user-key rule then reads it (docs/spec/protocol.md §11.5,
/// K37): a user conflicted at the primary stays conflicted at the new device when the server
/// lists a single key, and a listed certificate is kept whole so that a primary can send it.
@Suite("Transferred trust under the user-key rule")
struct TransferredTrustRuleTests {
    private static let now: Int64 = 1_800_000_000

    private static func wire(_ text: String) -> WireUUID { (try? WireUUID(text: text)) ?? wire(text) }

    private static func clock() -> UserKeyClock {
        UserKeyClock(now: now, readings: ClockReadings(mark: now, agreedReading: now))
    }

    @Test("K37: Carol conflicted on P; N, listed only the thief's key, pins nothing")
    func conflictSurvivesASingleKeyListing() async throws {
        let alice = UUID().uuidString.lowercased(), carol = UUID().uuidString.lowercased()
        let primary = UUID().uuidString.lowercased(), newDevice = UUID().uuidString.lowercased()
        let phone = UUID().uuidString.lowercased(), stolen = UUID().uuidString.lowercased()
        let carolKey = Ed25519.PrivateKey(), thiefKey = Ed25519.PrivateKey()
        let phoneIdentity = IdentityKeyPair().publicIdentity, stolenIdentity = IdentityKeyPair().publicIdentity
        let notAfter = UInt32(Self.now + 20 * 86_400)
        let phoneCert = try DeviceCertificate.issue(by: carolKey, userID: Self.wire(carol), deviceID: Self.wire(phone), identity: phoneIdentity,
                                                    epoch: 2, notAfter: notAfter)
        let stolenCert = try DeviceCertificate.issue(by: thiefKey, userID: Self.wire(carol), deviceID: Self.wire(stolen), identity: stolenIdentity,
                                                     epoch: 1, notAfter: notAfter)
        let records: [TrustRecord] = [(carolKey, phone, phoneIdentity, phoneCert), (thiefKey, stolen, stolenIdentity, stolenCert)].map {
            .contactKey(ContactKeyRecord(userID: Self.wire(carol), userKey: $0.0.publicKey, state: .listed, userConflicted: true, seenUntil: notAfter,
                                         seenAt: UInt32(Self.now), highestEpoch: $0.3.epoch, deviceID: Self.wire($0.1), identity: $0.2, certificate: $0.3))
        }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("e2ee-transfer-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = try KeyStore.open(at: directory.appendingPathComponent("n.sqlite"), key: .random())
        try await store.storeAccount(AccountRecord(serverURL: "https://example.invalid", userID: alice, deviceID: newDevice, accessToken: nil,
                                                   refreshToken: nil, updatedAt: StoreTime(microseconds: 0)))
        let report = try await store.importTrust(records, from: primary, ownUserKey: nil, now: Self.now)
        #expect(report.skipped.isEmpty && report.conflicts.isEmpty)

        let (standing, keys, links) = try await store.read { db in
            let contacts = ContactKeyStore()
            return (try contacts.loadStanding(userID: carol, db), try contacts.loadKeys(userID: carol, db), try contacts.loadLinks(userID: carol, db))
        }
        let listing = [ListedCertificate(deviceID: stolen, reading: .certificate(key: thiefKey.publicKey.rawRepresentation, epoch: 1, notAfter: notAfter),
                                         bytes: stolenCert.bytes)]
        let outcome = UserKeyRule.decide(UserKeyRule.Input(userID: carol, listing: listing, standing: standing, keys: keys, links: links,
                                                           trusted: [], clock: Self.clock()))
        #expect(outcome.standing?.state == .conflicted)
        #expect(outcome.standing?.pinnedKey == nil)
        #expect(outcome.resolution == .unresolved(.conflicted))
    }

    @Test("a listed certificate is stored whole with the device's link")
    func listedCertificateIsKept() throws {
        let carol = UUID().uuidString.lowercased(), phone = UUID().uuidString.lowercased()
        let key = Ed25519.PrivateKey()
        let cert = try DeviceCertificate.issue(by: key, userID: Self.wire(carol), deviceID: Self.wire(phone), identity: IdentityKeyPair().publicIdentity,
                                               epoch: 3, notAfter: UInt32(Self.now + 20 * 86_400))
        let listing = [ListedCertificate(deviceID: phone, reading: .certificate(key: key.publicKey.rawRepresentation, epoch: 3, notAfter: cert.notAfter),
                                         bytes: cert.bytes)]
        let outcome = UserKeyRule.decide(UserKeyRule.Input(userID: carol, listing: listing, standing: nil, keys: [], links: [:], trusted: [],
                                                           clock: Self.clock()))
        #expect(outcome.links.map(\.certificate) == [cert.bytes])
    }
}
