import E2EEKeyStore
@testable import E2EEMessaging
import Testing

/// docs/spec/protocol.md §5.11 as a pure rule: every standing a listed or unlisted user can have.
@Suite("Member decision")
struct MemberDecisionTests {
    private let me = "u-me", peer = "u-peer", third = "u-third"
    private let now = StoreTime(microseconds: 10_000_000)

    private func standing(_ user: String, _ state: MemberState, missingSince: Int64? = nil) -> (String, MemberStanding) {
        (user, MemberStanding(channelID: "g", userID: user, state: state, missingSince: missingSince.map(StoreTime.init(microseconds:))))
    }

    private func decide(_ listed: [String], _ standings: [(String, MemberStanding)]) -> MemberDecision.Outcome {
        MemberDecision.decide(channelID: "g", listed: listed, ownUserID: UserID(me), standings: Dictionary(uniqueKeysWithValues: standings), now: now)
    }

    @Test("approved members and our own user may receive keys; nothing to store")
    func approvedAreApproved() {
        let outcome = decide([me, peer, peer], [standing(peer, .approved)])
        #expect(outcome.approved == [me, peer])
        #expect(outcome.held.isEmpty && outcome.newlyHeld.isEmpty && outcome.updates.isEmpty)
    }

    @Test("a user never approved is held, once: surfaced the first time, still held and not surfaced again later")
    func strangerIsHeldOnce() {
        let first = decide([me, peer, third], [standing(peer, .approved)])
        #expect(first.approved == [me, peer])
        #expect(first.newlyHeld == [third])
        #expect(first.updates == [MemberStanding(channelID: "g", userID: third, state: .held)])
        let again = decide([me, peer, third], [standing(peer, .approved), standing(third, .held)])
        #expect(again.held == [third])
        #expect(again.newlyHeld.isEmpty && again.updates.isEmpty)
    }

    @Test("a declined user stays out silently")
    func declinedStaysOut() {
        let outcome = decide([me, third], [standing(third, .declined)])
        #expect(outcome.approved == [me])
        #expect(outcome.held.isEmpty && outcome.newlyHeld.isEmpty && outcome.updates.isEmpty)
    }

    @Test("an approved member missing from one read is marked, from a read 2 s later gone; listed again in between it stays approved")
    func goneAfterTwoReads() {
        let first = decide([me], [standing(peer, .approved)])
        #expect(first.updates == [MemberStanding(channelID: "g", userID: peer, state: .approved, missingSince: now)])
        let soon = decide([me], [standing(peer, .approved, missingSince: now.microseconds - 1_999_999)])
        #expect(soon.updates.isEmpty)
        let later = decide([me], [standing(peer, .approved, missingSince: now.microseconds - 2_000_000)])
        #expect(later.updates == [MemberStanding(channelID: "g", userID: peer, state: .gone)])
        let back = decide([me, peer], [standing(peer, .approved, missingSince: now.microseconds - 1_000_000)])
        #expect(back.approved == [me, peer])
        #expect(back.updates == [MemberStanding(channelID: "g", userID: peer, state: .approved)])
    }

    @Test("a gone member who is listed again is new: held and surfaced")
    func goneComesBackHeld() {
        let outcome = decide([me, peer], [standing(peer, .gone)])
        #expect(outcome.approved == [me])
        #expect(outcome.newlyHeld == [peer])
    }
}
