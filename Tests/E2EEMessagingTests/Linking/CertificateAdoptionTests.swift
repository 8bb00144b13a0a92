import E2EECrypto
@_spi(StoreInternals) import E2EEKeyStore
@testable import E2EEMessaging
import Testing

/// docs/spec/protocol.md §10.13 "Adopting a certificate", as pure rules: what a linked device
/// takes from a `recert`, and whom it takes as its primary.
@Suite("Adopting a certificate")
struct CertificateAdoptionTests {
    private let now: Int64 = 1_800_000_000
    private let day: Int64 = 86_400
    private let userKey = Ed25519.PrivateKey(using: SystemRandom())
    private let user = WireUUID.random(using: SystemRandom())
    private let me = WireUUID.random(using: SystemRandom())
    private let primary = WireUUID.random(using: SystemRandom())
    private let identity = IdentityKeyPair(using: SystemRandom()).publicIdentity

    private var clock: UserKeyClock {
        UserKeyClock(now: now, readings: ClockReadings(mark: now, agreedReading: now, wentBack: false, suspect: false))
    }

    private var subject: CertificateAdoption.Subject { .init(userID: user, deviceID: me, identity: identity) }

    private func stored(epoch: UInt32 = 1, left days: Int64? = 10) -> CertificateAdoption.Stored {
        .init(userKey: userKey.publicKey.rawRepresentation, epoch: epoch, notAfter: days.map { UInt32(now + $0 * day) })
    }

    private func certificate(by key: Ed25519.PrivateKey? = nil, device: WireUUID? = nil, identity other: IdentityBlob? = nil, epoch: UInt32 = 1,
                             left days: Int64 = 30) throws -> DeviceCertificate {
        try DeviceCertificate.issue(by: key ?? userKey, userID: user, deviceID: device ?? me, identity: other ?? identity, epoch: epoch,
                                    notAfter: UInt32(now + days * day))
    }

    @Test("a later certificate for our own device, blob and pinned key, current, at the stored epoch or above, is adopted")
    func adoptsLater() throws {
        #expect(CertificateAdoption.adopts(try certificate(), subject: subject, stored: stored(), clock: clock))
        #expect(CertificateAdoption.adopts(try certificate(epoch: 2), subject: subject, stored: stored(), clock: clock))
        // A higher epoch ending the same second (a removal right after the grant) is adopted too.
        #expect(CertificateAdoption.adopts(try certificate(epoch: 2, left: 10), subject: subject, stored: stored(left: 10), clock: clock))
        // A stored certificate no longer current: any current one of ours is adopted, even an earlier end.
        #expect(CertificateAdoption.adopts(try certificate(left: 5), subject: subject, stored: stored(left: -2), clock: clock))
    }

    @Test("refused: another device, another blob, another key, an expired one, a lower epoch, an end not later")
    func refusals() throws {
        let other = WireUUID.random(using: SystemRandom())
        #expect(!CertificateAdoption.adopts(try certificate(device: other), subject: subject, stored: stored(), clock: clock))
        let otherBlob = IdentityKeyPair(using: SystemRandom()).publicIdentity
        #expect(!CertificateAdoption.adopts(try certificate(identity: otherBlob), subject: subject, stored: stored(), clock: clock))
        let thief = Ed25519.PrivateKey(using: SystemRandom())
        #expect(!CertificateAdoption.adopts(try certificate(by: thief), subject: subject, stored: stored(), clock: clock))
        #expect(!CertificateAdoption.adopts(try certificate(left: -1), subject: subject, stored: stored(), clock: clock))
        #expect(!CertificateAdoption.adopts(try certificate(epoch: 1), subject: subject, stored: stored(epoch: 2), clock: clock))
        #expect(!CertificateAdoption.adopts(try certificate(left: 10), subject: subject, stored: stored(left: 10), clock: clock))
        #expect(!CertificateAdoption.adopts(try certificate(left: 8), subject: subject, stored: stored(left: 10), clock: clock))
    }

    @Test("the sender becomes the primary only with primary_sig for (sender, this device) under the pinned key")
    func primaryOnlyBySignature() throws {
        let renewed = try certificate()
        let signed = PrimarySignature.sign(by: userKey, userID: user, senderDevice: primary, recipientDevice: me, epoch: renewed.epoch,
                                           notAfter: renewed.notAfter)
        #expect(CertificateAdoption.takesAsPrimary(sender: primary, signature: signed, certificate: renewed, subject: subject, stored: stored()))
        // The same signature replayed by another own device, or made for another recipient, or a zero one: no.
        let replayer = WireUUID.random(using: SystemRandom())
        #expect(!CertificateAdoption.takesAsPrimary(sender: replayer, signature: signed, certificate: renewed, subject: subject, stored: stored()))
        let forOther = PrimarySignature.sign(by: userKey, userID: user, senderDevice: replayer, recipientDevice: replayer, epoch: renewed.epoch,
                                             notAfter: renewed.notAfter)
        #expect(!CertificateAdoption.takesAsPrimary(sender: replayer, signature: forOther, certificate: renewed, subject: subject, stored: stored()))
        #expect(!CertificateAdoption.takesAsPrimary(sender: replayer, signature: [UInt8](repeating: 0, count: 64), certificate: renewed,
                                                    subject: subject, stored: stored()))
        // Signed by another key: no, whatever the certificate.
        let thief = Ed25519.PrivateKey(using: SystemRandom())
        let thiefs = try certificate(by: thief)
        let bySig = PrimarySignature.sign(by: thief, userID: user, senderDevice: replayer, recipientDevice: me, epoch: thiefs.epoch,
                                          notAfter: thiefs.notAfter)
        #expect(!CertificateAdoption.takesAsPrimary(sender: replayer, signature: bySig, certificate: thiefs, subject: subject, stored: stored()))
    }
}
