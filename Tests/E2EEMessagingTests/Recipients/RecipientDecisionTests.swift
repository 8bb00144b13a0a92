import E2EEKeyStore
@testable import E2EEMessaging
import Testing

/// docs/spec/protocol.md §5 "Who receives keys" as a pure rule: every case of a device's standing
/// and channel kind (no policy decides any of them since text 1.2).
@Suite("Recipient decision")
struct RecipientDecisionTests {
    private let me = "u-me", peer = "u-peer", third = "u-third"

    private func input(dm: Bool, members: [String], devices: [String: [String]], records: [(String, String, RecipientState)] = [],
                       known: [String: Set<String>] = [:], anomalies: Set<String> = []) -> RecipientDecision.Input {
        RecipientDecision.Input(
            channelID: "c", isDM: dm, ownUserID: UserID(me), ownDeviceID: "d-me", participants: dm ? [me, peer] : [], members: members, devices: devices,
            records: Dictionary(uniqueKeysWithValues: records.map {
                ($0.1, ChannelRecipient(channelID: "c", userID: $0.0, deviceID: $0.1, state: $0.2, updatedAt: StoreTime(microseconds: 0)))
            }),
            known: known, recordedAnomalies: anomalies)
    }

    private func device(_ user: String, _ id: String) -> RecipientDevice { RecipientDevice(userID: UserID(user), deviceID: DeviceID(id)) }

    @Test("first contact: every listed device is trusted on first use — surfaced, sent, known, never held (DM default hold)")
    func firstContactIsTrustedOnFirstUse() {
        let plan = RecipientDecision.decide(input(dm: true, members: [me, peer], devices: [me: ["d-me"], peer: ["p1", "p2"]], known: [me: ["d-me"]]))
        #expect(plan.recipients == [device(peer, "p1"), device(peer, "p2")])
        #expect(plan.changes.surfaced == plan.recipients)
        #expect(plan.changes.held.isEmpty)
        #expect(plan.newlyKnown == [device(peer, "p1"), device(peer, "p2")])
        #expect(plan.updates.map(\.state) == [.recipient, .recipient])
    }

    @Test("a device already sent to is a recipient with nothing surfaced; this device is never one")
    func knownRecipientIsQuiet() {
        let plan = RecipientDecision.decide(input(dm: true, members: [me, peer], devices: [me: ["d-me"], peer: ["p1"]],
                                                  records: [(peer, "p1", .recipient)], known: [me: ["d-me"], peer: ["p1"]]))
        #expect(plan.recipients == [device(peer, "p1")])
        #expect(plan.changes.isEmpty)
        #expect(plan.updates.isEmpty)
    }

    @Test("DM default: a peer's new device after first contact is surfaced and held, the known one still gets keys")
    func newPeerDeviceInDMIsHeld() {
        let plan = RecipientDecision.decide(input(dm: true, members: [me, peer], devices: [peer: ["p1", "p9"]],
                                                  records: [(peer, "p1", .recipient)], known: [peer: ["p1"]]))
        #expect(plan.recipients == [device(peer, "p1")])
        #expect(plan.changes.surfaced == [device(peer, "p9")])
        #expect(plan.changes.held == [device(peer, "p9")])
        #expect(plan.updates.map(\.state) == [.held])
        #expect(plan.newlyKnown.isEmpty)
    }

    @Test("group: a peer's new device after first contact is held like in a DM; our own user's new device is held")
    func groupHoldsNewDevices() {
        let plan = RecipientDecision.decide(input(dm: false, members: [me, peer], devices: [me: ["d-me", "m2"], peer: ["p1", "p9"]],
                                                  records: [(peer, "p1", .recipient)], known: [me: ["d-me"], peer: ["p1"]]))
        #expect(plan.recipients == [device(peer, "p1")])
        #expect(plan.changes.held == [device(me, "m2"), device(peer, "p9")])
        #expect(plan.changes.surfaced == plan.changes.held)
        #expect(plan.newlyKnown.isEmpty)
    }

    @Test("our own user is never a first contact: with no device known for it, every other own device is held")
    func ownUserIsNeverFirstContact() {
        let plan = RecipientDecision.decide(input(dm: false, members: [me, peer], devices: [me: ["d-me", "m2"], peer: ["p1"]],
                                                  known: [peer: ["p1"]]))
        #expect(plan.recipients == [device(peer, "p1")])
        #expect(plan.changes.held == [device(me, "m2")])
        #expect(!plan.newlyKnown.contains(device(me, "m2")))
    }

    @Test("a third member of a DM is never a recipient: surfaced once as an anomaly, its devices not even considered")
    func thirdDMMemberIsAnAnomaly() {
        let first = RecipientDecision.decide(input(dm: true, members: [me, peer, third], devices: [peer: ["p1"], third: ["t1"]],
                                                   records: [(peer, "p1", .recipient)], known: [peer: ["p1"]]))
        #expect(first.recipients == [device(peer, "p1")])
        #expect(first.changes.unexpectedMembers == [UserID(third)])
        #expect(first.changes.surfaced.isEmpty)
        let again = RecipientDecision.decide(input(dm: true, members: [me, peer, third], devices: [peer: ["p1"], third: ["t1"]],
                                                   records: [(peer, "p1", .recipient)], known: [peer: ["p1"]], anomalies: [third]))
        #expect(again.changes.isEmpty)
    }

    @Test("a member's devices are removed when it is no longer passed as a member; back, they are surfaced and held")
    func leaveAndRejoin() {
        let left = RecipientDecision.decide(input(dm: false, members: [me, peer], devices: [peer: ["p1"]],
                                                  records: [(peer, "p1", .recipient), (third, "t1", .recipient)], known: [peer: ["p1"], third: ["t1"]]))
        #expect(left.changes.removed == [device(third, "t1")])
        #expect(left.vanished.isEmpty)
        #expect(left.updates.map(\.state) == [.removed])
        let records: [(String, String, RecipientState)] = [(peer, "p1", .recipient), (third, "t1", .removed)]
        let back = RecipientDecision.decide(input(dm: false, members: [me, peer, third], devices: [peer: ["p1"], third: ["t1"]],
                                                  records: records, known: [peer: ["p1"], third: ["t1"]]))
        #expect(back.changes.surfaced == [device(third, "t1")])
        #expect(back.changes.held == [device(third, "t1")])
        #expect(!back.recipients.contains(device(third, "t1")))
    }

    @Test("a group member passed for the first time (approved) is a first contact: its listed devices are trusted on first use")
    func approvedNewMemberIsFirstContact() {
        let plan = RecipientDecision.decide(input(dm: false, members: [me, peer, third], devices: [peer: ["p1"], third: ["t1"]],
                                                  records: [(peer, "p1", .recipient)], known: [peer: ["p1"]]))
        #expect(plan.recipients == [device(peer, "p1"), device(third, "t1")])
        #expect(plan.changes.held.isEmpty)
        #expect(plan.newlyKnown == [device(third, "t1")])
    }

    @Test("a device the server stops listing is removed and, its user still listed, reported as a vanished device")
    func vanishedDevice() {
        let plan = RecipientDecision.decide(input(dm: true, members: [me, peer], devices: [peer: ["p1"]],
                                                  records: [(peer, "p1", .recipient), (peer, "p2", .recipient)], known: [peer: ["p1", "p2"]]))
        #expect(plan.changes.removed == [device(peer, "p2")])
        #expect(plan.vanished == [device(peer, "p2")])
        #expect(plan.recipients == [device(peer, "p1")])
    }

    @Test("held and declined devices stay out; a held one is listed again, nothing re-surfaced; declined stays declined when it vanishes")
    func heldAndDeclinedStayOut() {
        let plan = RecipientDecision.decide(input(dm: true, members: [me, peer], devices: [peer: ["p1", "p8", "p9"]],
                                                  records: [(peer, "p1", .recipient), (peer, "p8", .declined), (peer, "p9", .held)],
                                                  known: [peer: ["p1"]]))
        #expect(plan.recipients == [device(peer, "p1")])
        #expect(plan.changes.held == [device(peer, "p9")])
        #expect(plan.changes.surfaced.isEmpty)
        #expect(plan.updates.isEmpty)
        let gone = RecipientDecision.decide(input(dm: true, members: [me, peer], devices: [peer: ["p1"]],
                                                  records: [(peer, "p1", .recipient), (peer, "p8", .declined)], known: [peer: ["p1"]]))
        #expect(gone.updates.isEmpty)
    }

    @Test("a DM device that vanished and comes back is held again (DM default)")
    func returningDMDeviceIsHeld() {
        let plan = RecipientDecision.decide(input(dm: true, members: [me, peer], devices: [peer: ["p1", "p2"]],
                                                  records: [(peer, "p1", .recipient), (peer, "p2", .removed)], known: [peer: ["p1", "p2"]]))
        #expect(plan.changes.held == [device(peer, "p2")])
        #expect(plan.recipients == [device(peer, "p1")])
    }
}
