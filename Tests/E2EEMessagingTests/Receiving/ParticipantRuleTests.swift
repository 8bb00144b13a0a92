@testable import E2EEMessaging
import Testing

@Suite("Receive: the DM participant rule, on its own")
struct ParticipantRuleTests {
    private let own = UserID("own-user")
    private let bob = UserID("bob")
    private let carol = UserID("carol")

    private func read(_ users: Set<String>, learned: Bool = true, pinnedAsGroup: Bool = false) -> DMParticipants {
        DMParticipants(users: users, learned: learned, pinnedAsGroup: pinnedAsGroup)
    }

    @Test("fixed participants admit themselves and refuse a third user")
    func fixedParticipants() {
        let fixed = read([own.rawValue, bob.rawValue])
        #expect(ParticipantRule.admission(of: bob, ownUser: own, participants: fixed) == .allowed)
        #expect(ParticipantRule.admission(of: own, ownUser: own, participants: fixed) == .allowed)
        #expect(ParticipantRule.admission(of: carol, ownUser: own, participants: fixed) == .notAParticipant)
    }

    @Test("a request: another user's message waits, our own passes; a channel never learned has no request")
    func request() {
        #expect(ParticipantRule.admission(of: bob, ownUser: own, participants: read([])) == .waitForAcceptance)
        #expect(ParticipantRule.admission(of: own, ownUser: own, participants: read([])) == .allowed)
        #expect(ParticipantRule.admission(of: bob, ownUser: own, participants: read([], learned: false)) == .allowed)
    }

    @Test("our own user's message naming the other participant fixes the pair, once")
    func ownMessageFixes() {
        #expect(ParticipantRule.participantsFixed(namingOther: "BOB", sender: own, ownUser: own, participants: read([]))
            == [own.rawValue, bob.rawValue])
        // Already fixed: nothing to fix (not even to another pair).
        #expect(ParticipantRule.participantsFixed(namingOther: carol.rawValue, sender: own, ownUser: own,
                                                  participants: read([own.rawValue, bob.rawValue])) == nil)
    }

    @Test("only our own user fixes, never naming ourselves, never in a channel pinned as a group")
    func whoFixes() {
        #expect(ParticipantRule.participantsFixed(namingOther: carol.rawValue, sender: bob, ownUser: own, participants: read([])) == nil)
        #expect(ParticipantRule.participantsFixed(namingOther: own.rawValue, sender: own, ownUser: own, participants: read([])) == nil)
        #expect(ParticipantRule.participantsFixed(namingOther: bob.rawValue, sender: own, ownUser: own, participants: read([], pinnedAsGroup: true)) == nil)
    }
}
