import E2EECrypto
@testable import E2EEMessaging
import Testing

/// docs/spec/protocol.md §10.11: the ceremony between a new device N and the primary P, both
/// machines driven against each other as the devices channel would carry their messages.
@Suite("Link ceremony")
struct LinkCeremonyTests {
    let fixture = LinkCeremonyFixture()

    /// P opened, N asked P: P's accept and N's reveal exchanged; returns both machines and the
    /// code each shows.
    func exchange(at now: Int64 = 0) throws -> (PrimaryLinkStep, NewDeviceLinkAttempt, codeN: String) {
        var (step, _) = PrimaryLinkStep.open(by: fixture.primarySelf, now: now)
        var (attempt, asked) = NewDeviceLinkAttempt.start(by: fixture.newSelf, asking: [fixture.primary.deviceID], now: now)
        let request = try #require(LinkCeremonyFixture.sent(asked, to: fixture.primary).first)
        guard case .request(let requestID, let commit) = request else { throw Failure("not a request: \(request)") }
        let accepted = step.handle(.request(from: fixture.newDevice, requestID: requestID, commit: commit, afterOpening: true), now: now)
        let accept = try #require(LinkCeremonyFixture.sent(accepted, to: fixture.newDevice).first)
        guard case .accept(_, let nonceP) = accept else { throw Failure("not an accept: \(accept)") }
        let revealed = attempt.handle(.accept(from: fixture.primary, requestID: requestID, nonce: nonceP), now: now)
        let codeN = try #require(LinkCeremonyFixture.shownCode(revealed))
        let reveal = try #require(LinkCeremonyFixture.sent(revealed, to: fixture.primary).first)
        guard case .reveal(_, let nonceN) = reveal else { throw Failure("not a reveal: \(reveal)") }
        #expect(step.handle(.reveal(from: fixture.newDevice.deviceID, requestID: requestID, nonce: nonceN), now: now) == [.show(.enterCode)])
        return (step, attempt, codeN)
    }

    @Test("both codes typed: P grants N, N adopts the grant from P and is linked")
    func happyPath() throws {
        var (step, attempt, codeN) = try exchange()
        let typedIntoP = step.handle(.codeEntered(codeN), now: 30)
        let codeP = try #require(LinkCeremonyFixture.shownCode(typedIntoP))
        #expect(typedIntoP.contains(.grant(to: fixture.newDevice, requestID: attempt.requestID)))
        #expect(step.phase == .granted)
        let grant = try fixture.grant(for: fixture.newDevice, requestID: attempt.requestID)
        #expect(attempt.handle(.grant(from: fixture.primary.deviceID, grant, current: true), now: 40) == [.show(.granted(DeviceID(fixture.newDevice.deviceID.text)))])
        let typedIntoN = attempt.handle(.codeEntered(codeP), now: 50)
        #expect(typedIntoN == [.adopt(grant, primary: fixture.primary.deviceID), .show(.linked)])
        #expect(attempt.phase == .linked)
    }

    @Test("the code typed into N before the grant arrives links at the grant")
    func codeBeforeGrant() throws {
        var (step, attempt, codeN) = try exchange()
        let codeP = try #require(LinkCeremonyFixture.shownCode(step.handle(.codeEntered(codeN), now: 1)))
        #expect(attempt.handle(.codeEntered(codeP), now: 2).isEmpty)
        let grant = try fixture.grant(for: fixture.newDevice, requestID: attempt.requestID)
        #expect(attempt.handle(.grant(from: fixture.primary.deviceID, grant, current: true), now: 3).contains(.adopt(grant, primary: fixture.primary.deviceID)))
    }

    @Test("the two sides derive the same codes, and they differ when one blob differs")
    func codesAgree() throws {
        let (_, _, codeN) = try exchange()
        #expect(codeN.count == 6 && codeN.allSatisfy(\.isNumber))
        // N bound to another blob for P (a server swapping the key it lists) derives other codes.
        var (step, _) = PrimaryLinkStep.open(by: fixture.primarySelf, now: 0)
        var (attempt, asked) = NewDeviceLinkAttempt.start(by: fixture.newSelf, asking: [fixture.primary.deviceID], now: 0)
        guard case .request(let requestID, let commit) = try #require(LinkCeremonyFixture.sent(asked, to: fixture.primary).first) else { return }
        let accepted = step.handle(.request(from: fixture.newDevice, requestID: requestID, commit: commit, afterOpening: true), now: 0)
        guard case .accept(_, let nonceP) = try #require(LinkCeremonyFixture.sent(accepted, to: fixture.newDevice).first) else { return }
        let impostor = LinkParty(deviceID: fixture.primary.deviceID, identity: fixture.stranger.identity)
        let revealed = attempt.handle(.accept(from: impostor, requestID: requestID, nonce: nonceP), now: 0)
        guard case .reveal(_, let nonceN) = try #require(LinkCeremonyFixture.sent(revealed, to: fixture.primary).first) else { return }
        _ = step.handle(.reveal(from: fixture.newDevice.deviceID, requestID: requestID, nonce: nonceN), now: 0)
        let wrongCode = try #require(LinkCeremonyFixture.shownCode(revealed))
        let typed = step.handle(.codeEntered(wrongCode), now: 1)
        #expect(LinkCeremonyFixture.cancelled(typed) == .codeMismatch, "a code over another blob does not match")
        #expect(!typed.contains { if case .grant = $0 { true } else { false } })
    }

    @Test("a wrong code typed into P cancels with code mismatch and grants nothing")
    func wrongCodeAtPrimary() throws {
        var (step, _, codeN) = try exchange()
        let wrong = codeN == "000000" ? "000001" : "000000"
        let actions = step.handle(.codeEntered(wrong), now: 1)
        #expect(LinkCeremonyFixture.cancelled(actions) == .codeMismatch)
        #expect(LinkCeremonyFixture.sent(actions, to: fixture.newDevice).count == 1, "N is told")
        #expect(step.handle(.codeEntered(codeN), now: 2).isEmpty, "closed for good: the right code later grants nothing")
    }

    @Test("a wrong code typed into N cancels; the grant then changes nothing")
    func wrongCodeAtNewDevice() throws {
        var (step, attempt, codeN) = try exchange()
        let codeP = try #require(LinkCeremonyFixture.shownCode(step.handle(.codeEntered(codeN), now: 1)))
        let wrong = codeP == "999999" ? "999998" : "999999"
        #expect(LinkCeremonyFixture.cancelled(attempt.handle(.codeEntered(wrong), now: 2)) == .codeMismatch)
        let grant = try fixture.grant(for: fixture.newDevice, requestID: attempt.requestID)
        #expect(attempt.handle(.grant(from: fixture.primary.deviceID, grant, current: true), now: 3).isEmpty)
        #expect(attempt.phase == .cancelled(.codeMismatch))
    }

    @Test("K20: a second request while one is answered closes the step and cancels both requesters")
    func twoAtOnce() throws {
        var (step, _) = PrimaryLinkStep.open(by: fixture.primarySelf, now: 0)
        _ = step.handle(.request(from: fixture.newDevice, requestID: .fixture(0x51), commit: [UInt8](repeating: 1, count: 32), afterOpening: true), now: 0)
        let second = step.handle(.request(from: fixture.stranger, requestID: .fixture(0x52), commit: [UInt8](repeating: 2, count: 32), afterOpening: true), now: 1)
        #expect(LinkCeremonyFixture.cancelled(second) == .superseded)
        #expect(LinkCeremonyFixture.sent(second, to: fixture.newDevice) == [.cancel(id: .fixture(0x51), reason: .superseded)])
        #expect(LinkCeremonyFixture.sent(second, to: fixture.stranger) == [.cancel(id: .fixture(0x52), reason: .superseded)])
        #expect(step.handle(.request(from: fixture.newDevice, requestID: .fixture(0x53), commit: [UInt8](repeating: 3, count: 32), afterOpening: true), now: 2).isEmpty,
                "requests while closed are ignored")
    }

    @Test("the same device asking again (a stale request answered first) gets the new request answered; the step stays open")
    func sameDeviceAsksAgain() throws {
        var (step, _) = PrimaryLinkStep.open(by: fixture.primarySelf, now: 0)
        _ = step.handle(.request(from: fixture.newDevice, requestID: .fixture(0x51), commit: [UInt8](repeating: 1, count: 32), afterOpening: true), now: 0)
        let again = step.handle(.request(from: fixture.newDevice, requestID: .fixture(0x52), commit: [UInt8](repeating: 2, count: 32), afterOpening: true), now: 1)
        #expect(LinkCeremonyFixture.cancelled(again) == nil)
        guard case .accept(let id, _)? = LinkCeremonyFixture.sent(again, to: fixture.newDevice).first else {
            Issue.record("no accept for the new request: \(again)")
            return
        }
        #expect(id == .fixture(0x52))
        #expect(step.phase == .answered)
        // Another device asking now still closes the step.
        let other = step.handle(.request(from: fixture.stranger, requestID: .fixture(0x53), commit: [UInt8](repeating: 3, count: 32), afterOpening: true), now: 2)
        #expect(LinkCeremonyFixture.cancelled(other) == .superseded)
    }

    @Test("K19: a request from a device the server made, racing N's, leaves no code to match and grants nothing")
    func racingRequest() throws {
        var (step, _) = PrimaryLinkStep.open(by: fixture.primarySelf, now: 0)
        var (attempt, asked) = NewDeviceLinkAttempt.start(by: fixture.newSelf, asking: [fixture.primary.deviceID], now: 0)
        // X's request reaches P first and is answered.
        _ = step.handle(.request(from: fixture.stranger, requestID: .fixture(0x61), commit: [UInt8](repeating: 9, count: 32), afterOpening: true), now: 0)
        guard case .request(let requestID, let commit) = try #require(LinkCeremonyFixture.sent(asked, to: fixture.primary).first) else { return }
        let closing = step.handle(.request(from: fixture.newDevice, requestID: requestID, commit: commit, afterOpening: true), now: 1)
        let toN = LinkCeremonyFixture.sent(closing, to: fixture.newDevice)
        #expect(toN == [.cancel(id: requestID, reason: .superseded)])
        #expect(attempt.handle(.cancel(from: fixture.primary.deviceID, id: requestID, reason: .superseded), now: 1) == [.show(.cancelled(.superseded))])
        #expect(!closing.contains { if case .grant = $0 { true } else { false } })
    }

    @Test("requests posted before the step opened, or while it is closed, are not answered")
    func requestBeforeOpening() {
        var (step, _) = PrimaryLinkStep.open(by: fixture.primarySelf, now: 0)
        #expect(step.handle(.request(from: fixture.newDevice, requestID: .fixture(0x71), commit: [UInt8](repeating: 1, count: 32), afterOpening: false), now: 0).isEmpty)
        #expect(step.phase == .open)
    }

    @Test("a reveal that does not open the request's commitment cancels; one from another device changes nothing")
    func badReveal() throws {
        var (step, _) = PrimaryLinkStep.open(by: fixture.primarySelf, now: 0)
        let commit = LinkCommitment.commit(to: SecretBytes(copying: [UInt8](repeating: 7, count: 32)))
        _ = step.handle(.request(from: fixture.newDevice, requestID: .fixture(0x81), commit: commit, afterOpening: true), now: 0)
        #expect(step.handle(.reveal(from: fixture.stranger.deviceID, requestID: .fixture(0x81), nonce: SecretBytes(copying: [UInt8](repeating: 7, count: 32))), now: 1).isEmpty)
        let bad = step.handle(.reveal(from: fixture.newDevice.deviceID, requestID: .fixture(0x81), nonce: SecretBytes(copying: [UInt8](repeating: 8, count: 32))), now: 2)
        #expect(LinkCeremonyFixture.cancelled(bad) == .codeMismatch)
    }

    @Test("a second reveal is out of order and closes the step")
    func secondReveal() throws {
        var (step, attempt, _) = try exchange()
        let again = step.handle(.reveal(from: fixture.newDevice.deviceID, requestID: attempt.requestID, nonce: SecretBytes(copying: [UInt8](repeating: 5, count: 32))), now: 1)
        #expect(LinkCeremonyFixture.cancelled(again) == .outOfOrder)
        _ = attempt
    }

    @Test("ten minutes without progress cancel on each side's own clock, with a cancel to the other")
    func expiry() throws {
        var (step, attempt, _) = try exchange(at: 1_000)
        #expect(step.handle(.tick, now: 1_599).isEmpty)
        let expiredP = step.handle(.tick, now: 1_600)
        #expect(LinkCeremonyFixture.cancelled(expiredP) == .expired)
        #expect(LinkCeremonyFixture.sent(expiredP, to: fixture.newDevice) == [.cancel(id: attempt.requestID, reason: .expired)])
        let expiredN = attempt.handle(.tick, now: 1_600)
        #expect(LinkCeremonyFixture.sent(expiredN, to: fixture.primary) == [.cancel(id: attempt.requestID, reason: .expired)])
    }

    @Test("K21: a grant after N gave up is not adopted")
    func lateGrant() throws {
        var (step, attempt, codeN) = try exchange()
        _ = step.handle(.codeEntered(codeN), now: 1)
        _ = attempt.handle(.tick, now: 601)
        let grant = try fixture.grant(for: fixture.newDevice, requestID: attempt.requestID)
        #expect(attempt.handle(.grant(from: fixture.primary.deviceID, grant, current: true), now: 700).isEmpty)
        #expect(attempt.phase == .cancelled(.expired))
    }

    @Test("K18, K23: N takes a grant only from the device whose accept it took, for its own device and blob, current")
    func grantChecks() throws {
        // From another own device N also asked: not acted on.
        var (step, _) = PrimaryLinkStep.open(by: fixture.primarySelf, now: 0)
        var (attempt, asked) = NewDeviceLinkAttempt.start(by: fixture.newSelf, asking: [fixture.primary.deviceID, fixture.stranger.deviceID], now: 0)
        guard case .request(let requestID, let commit) = try #require(LinkCeremonyFixture.sent(asked, to: fixture.primary).first) else { return }
        let accepted = step.handle(.request(from: fixture.newDevice, requestID: requestID, commit: commit, afterOpening: true), now: 0)
        guard case .accept(_, let nonceP) = try #require(LinkCeremonyFixture.sent(accepted, to: fixture.newDevice).first) else { return }
        let revealed = attempt.handle(.accept(from: fixture.primary, requestID: requestID, nonce: nonceP), now: 0)
        guard case .reveal(_, let nonceN) = try #require(LinkCeremonyFixture.sent(revealed, to: fixture.primary).first) else { return }
        _ = step.handle(.reveal(from: fixture.newDevice.deviceID, requestID: requestID, nonce: nonceN), now: 0)
        let codeN = try #require(LinkCeremonyFixture.shownCode(revealed))
        let codeP = try #require(LinkCeremonyFixture.shownCode(step.handle(.codeEntered(codeN), now: 1)))
        #expect(attempt.handle(.codeEntered(codeP), now: 2).isEmpty)

        let fromOther = try fixture.grant(for: fixture.newDevice, requestID: requestID)
        #expect(attempt.handle(.grant(from: fixture.stranger.deviceID, fromOther, current: true), now: 3).isEmpty, "not from the device it took")
        #expect(attempt.phase == .accepted)

        // A certificate for another device (the stranger's own, replayed as a grant) cancels.
        var copy = attempt
        let forOther = try fixture.grant(for: fixture.stranger, requestID: requestID)
        #expect(LinkCeremonyFixture.cancelled(copy.handle(.grant(from: fixture.primary.deviceID, forOther, current: true), now: 3)) == .outOfOrder)
        // One not current on N's clock cancels.
        copy = attempt
        #expect(LinkCeremonyFixture.cancelled(copy.handle(.grant(from: fixture.primary.deviceID, fromOther, current: false), now: 3)) == .outOfOrder)
        // The right one links.
        #expect(attempt.handle(.grant(from: fixture.primary.deviceID, fromOther, current: true), now: 3).contains(.adopt(fromOther, primary: fixture.primary.deviceID)))
    }

    @Test("an accept from a second device N asked cancels with both (superseded)")
    func secondAccept() throws {
        var (attempt, asked) = NewDeviceLinkAttempt.start(by: fixture.newSelf, asking: [fixture.primary.deviceID, fixture.stranger.deviceID], now: 0)
        guard case .request(let requestID, _) = try #require(LinkCeremonyFixture.sent(asked, to: fixture.primary).first) else { return }
        _ = attempt.handle(.accept(from: fixture.primary, requestID: requestID, nonce: SecretBytes(copying: [UInt8](repeating: 3, count: 32))), now: 0)
        let second = attempt.handle(.accept(from: fixture.stranger, requestID: requestID, nonce: SecretBytes(copying: [UInt8](repeating: 4, count: 32))), now: 1)
        #expect(LinkCeremonyFixture.cancelled(second) == .superseded)
        #expect(LinkCeremonyFixture.sent(second, to: fixture.primary) == [.cancel(id: requestID, reason: .superseded)])
        #expect(LinkCeremonyFixture.sent(second, to: fixture.stranger) == [.cancel(id: requestID, reason: .superseded)])
    }

    @Test("an accept from a device N did not ask, or for another request, changes nothing")
    func strayAccept() throws {
        var (attempt, asked) = NewDeviceLinkAttempt.start(by: fixture.newSelf, asking: [fixture.primary.deviceID], now: 0)
        guard case .request(let requestID, _) = try #require(LinkCeremonyFixture.sent(asked, to: fixture.primary).first) else { return }
        let nonce = SecretBytes(copying: [UInt8](repeating: 3, count: 32))
        #expect(attempt.handle(.accept(from: fixture.stranger, requestID: requestID, nonce: nonce), now: 0).isEmpty)
        #expect(attempt.handle(.accept(from: fixture.primary, requestID: .fixture(0x99), nonce: nonce), now: 0).isEmpty)
        #expect(attempt.phase == .asked)
    }

    @Test("the user's refusal cancels with reason 2 on either side")
    func refusal() throws {
        var (step, attempt, _) = try exchange()
        #expect(LinkCeremonyFixture.sent(step.handle(.userCancelled, now: 1), to: fixture.newDevice) == [.cancel(id: attempt.requestID, reason: .refusedByUser)])
        #expect(LinkCeremonyFixture.sent(attempt.handle(.userCancelled, now: 1), to: fixture.primary) == [.cancel(id: attempt.requestID, reason: .refusedByUser)])
    }
}

struct Failure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
