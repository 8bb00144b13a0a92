import E2EECrypto
@testable import E2EEMessaging
import Testing

/// docs/spec/protocol.md §10.11 steps 5–6: a grant keeps its device only when confirmed while
/// open; resent every minute until then; failed at 15 minutes; late confirmations keep nothing.
@Suite("Grant ledger")
struct GrantLedgerTests {
    let fixture = LinkCeremonyFixture()
    let issued: Int64 = 1_800_000_000

    func ledger(notAfter: UInt32 = 1_802_592_000) throws -> (GrantLedger, LinkGrant) {
        let grant = try fixture.grant(for: fixture.newDevice, requestID: .fixture(0x41), notAfter: notAfter)
        var ledger = GrantLedger()
        ledger.issued(to: fixture.newDevice.deviceID, requestID: grant.requestID, transferID: grant.transferID, certificate: grant.certificate, now: issued)
        return (ledger, grant)
    }

    @Test("resent every 60 s while open; the ack of its transfer from the device keeps it; then no more resends")
    func ackKeeps() throws {
        var (ledger, grant) = try ledger()
        #expect(ledger.tick(now: issued + 59).isEmpty)
        #expect(ledger.tick(now: issued + 60) == [.resend(transferID: grant.transferID)])
        #expect(ledger.tick(now: issued + 100).isEmpty)
        #expect(ledger.acknowledged(transferID: grant.transferID, from: fixture.stranger.deviceID, now: issued + 110).isEmpty, "only the granted device's ack counts")
        #expect(ledger.acknowledged(transferID: grant.transferID, from: fixture.newDevice.deviceID, now: issued + 120) == [.keep(fixture.newDevice.deviceID)])
        #expect(ledger.tick(now: issued + 300).isEmpty)
        #expect(ledger.acknowledged(transferID: grant.transferID, from: fixture.newDevice.deviceID, now: issued + 400).isEmpty, "kept once")
    }

    @Test("the device's listed record carrying exactly the granted certificate keeps it")
    func listingKeeps() throws {
        var (ledger, grant) = try ledger()
        let other = try fixture.grant(for: fixture.newDevice, requestID: .fixture(0x42))
        #expect(ledger.listed(other.certificate, of: fixture.newDevice.deviceID, now: issued + 5).isEmpty)
        #expect(ledger.listed(grant.certificate, of: fixture.newDevice.deviceID, now: issued + 5) == [.keep(fixture.newDevice.deviceID)])
    }

    @Test("K21: unconfirmed at 15 minutes the grant fails, resends stop; the ack released later is a late confirmation and keeps nothing")
    func failsThenLate() throws {
        var (ledger, grant) = try ledger()
        #expect(ledger.tick(now: issued + 899) == [.resend(transferID: grant.transferID)])
        #expect(ledger.tick(now: issued + 900) == [.failed(fixture.newDevice.deviceID)])
        #expect(ledger.tick(now: issued + 2_000).isEmpty, "no resend after the failure")
        #expect(ledger.acknowledged(transferID: grant.transferID, from: fixture.newDevice.deviceID, now: issued + 3_000) == [.lateConfirmation(fixture.newDevice.deviceID)])
        #expect(ledger.listed(grant.certificate, of: fixture.newDevice.deviceID, now: issued + 3_100).isEmpty, "surfaced once")
    }

    @Test("an ack arriving after the window fails the grant first, then is late — whatever the ticks missed")
    func ackAfterWindowWithoutTick() throws {
        var (ledger, grant) = try ledger()
        #expect(ledger.acknowledged(transferID: grant.transferID, from: fixture.newDevice.deviceID, now: issued + 1_000)
                == [.failed(fixture.newDevice.deviceID), .lateConfirmation(fixture.newDevice.deviceID)])
    }

    @Test("K24: a removed device's grant is void; its released ack or certified listing keeps nothing")
    func removal() throws {
        var (ledger, grant) = try ledger()
        ledger.removed(fixture.newDevice.deviceID)
        #expect(ledger.tick(now: issued + 60).isEmpty)
        #expect(ledger.acknowledged(transferID: grant.transferID, from: fixture.newDevice.deviceID, now: issued + 70) == [.lateConfirmation(fixture.newDevice.deviceID)])
        #expect(!ledger.listed(grant.certificate, of: fixture.newDevice.deviceID, now: issued + 80).contains(.keep(fixture.newDevice.deviceID)))
        ledger.issued(to: fixture.newDevice.deviceID, requestID: .fixture(0x43), transferID: .fixture(0x44), certificate: grant.certificate, now: issued + 90)
        #expect(ledger.acknowledged(transferID: .fixture(0x44), from: fixture.newDevice.deviceID, now: issued + 95).isEmpty, "never kept again")
    }

    @Test("a grant whose certificate ends before the window is void at its not_after")
    func certificateEnds() throws {
        var (ledger, grant) = try ledger(notAfter: UInt32(issued + 120))
        #expect(ledger.tick(now: issued + 121) == [.failed(fixture.newDevice.deviceID)])
        _ = grant
    }

    @Test("N's cancel of the granted request voids the grant: no resends")
    func cancelVoids() throws {
        var (ledger, grant) = try ledger()
        ledger.cancelled(requestID: .fixture(0x99), by: fixture.newDevice.deviceID)
        #expect(ledger.tick(now: issued + 60) == [.resend(transferID: grant.transferID)], "another request's cancel changes nothing")
        ledger.cancelled(requestID: grant.requestID, by: fixture.newDevice.deviceID)
        #expect(ledger.tick(now: issued + 120).isEmpty)
    }
}
