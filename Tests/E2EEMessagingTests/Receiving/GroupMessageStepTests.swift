import E2EECrypto
@_spi(StoreInternals) import E2EEKeyStore
@testable import E2EEMessaging
import Foundation
import Testing

/// The pure group step on its own: no store, no lane, no clock — inputs in, a decision out.
@Suite("Receive: the pure group step")
struct GroupMessageStepTests {
    /// A sender device's sending key in a channel, the receiving state its distribution installs,
    /// and the ids around them.
    struct Fixture {
        let channel: WireUUID
        let device: WireUUID
        let sender = UserID(newID())
        let own = UserID(newID())
        var sending: SenderKeySendingState
        let receiving: LaneState.SenderKey

        init() throws {
            channel = try WireUUID(text: newID())
            device = try WireUUID(text: newID())
            sending = SenderKeySendingState.generate(channel: channel, retainedKeyIDs: [], using: SystemRandom())
            guard case .install(let state) = try sending.distribution.process(postedChannel: channel, senderDevice: device, existing: nil, now: 0) else {
                throw SupportError("the distribution installed nothing")
            }
            let address = SenderKeyAddress(channelID: channel.text, senderDeviceID: device.text, keyID: sending.keyID)
            receiving = LaneState.SenderKey(record: ReceiverSenderKey(address: address, senderUserID: sender.rawValue, state: SecretBytes(copying: []),
                                                                      createdAt: StoreTime(microseconds: 0), updatedAt: StoreTime(microseconds: 0)),
                                            state: state)
        }

        /// The next group envelope of `text` (advances the sending key).
        mutating func envelope(_ text: String, editOf: WireUUID? = nil) throws -> GroupEnvelope {
            let payload = try MessagePayload(id: WireUUID(text: newID()), timestamp: 1_700_000_000_000, text: text, editOf: editOf).encodedJSON()
            let (envelope, next) = try sending.encrypt(payload, senderDevice: device)
            sending = next
            return envelope
        }

        func input(_ envelope: GroupEnvelope, key: LaneState.SenderKey?, from user: UserID? = nil, unaccepted: Bool? = false,
                   messageID: String = newID()) -> GroupMessageStep.Input {
            GroupMessageStep.Input(messageID: messageID, isEdit: false, editedAt: nil, createdAt: StoreTime(microseconds: 1), channel: channel,
                                   channelID: ChannelID(channel.text), envelope: envelope, verified: nil,
                                   sender: (user ?? sender, DeviceID(device.text)), ownUserID: own, channelUnaccepted: unaccepted, key: key,
                                   now: StoreTime(microseconds: 1_700_000_000_000_000))
        }
    }

    private func text(of decision: GroupMessageStep.Decision) -> String? {
        guard case .decrypted(_, let payload, _, _) = decision else { return nil }
        return payload.text
    }

    @Test("a message decrypts and returns the advanced state; the next decrypts from it, and the old one is not accepted again by it")
    func decryptsAndAdvances() throws {
        var f = try Fixture()
        let first = try f.envelope("one")
        let second = try f.envelope("two")
        let decided = try GroupMessageStep.decide(f.input(first, key: f.receiving))
        #expect(text(of: decided) == "one")
        #expect(text(of: try GroupMessageStep.decide(f.input(first, key: f.receiving))) == "one", "same input, same answer: nothing changed in between")
        guard case .decrypted(_, _, _, let advanced) = decided else { Issue.record("not decrypted"); return }
        #expect(advanced.record.updatedAt == StoreTime(microseconds: 1_700_000_000_000_000))
        #expect(text(of: try GroupMessageStep.decide(f.input(second, key: advanced))) == "two")
        #expect(throws: (any Error).self, "a replay under the state that consumed it") {
            try GroupMessageStep.decide(f.input(first, key: advanced))
        }
    }

    @Test("another user's message in a group not accepted here waits for the acceptance, key or not; our own user's passes")
    func unacceptedChannelWaits() throws {
        var f = try Fixture()
        let envelope = try f.envelope("hello")
        guard case .waitsForAcceptance = try GroupMessageStep.decide(f.input(envelope, key: f.receiving, unaccepted: true)) else {
            Issue.record("decided without the acceptance"); return
        }
        let ownKey = LaneState.SenderKey(record: ReceiverSenderKey(address: f.receiving.record.address, senderUserID: f.own.rawValue,
                                                                   state: SecretBytes(copying: []), createdAt: StoreTime(microseconds: 0),
                                                                   updatedAt: StoreTime(microseconds: 0)), state: f.receiving.state)
        #expect(text(of: try GroupMessageStep.decide(f.input(envelope, key: ownKey, from: f.own, unaccepted: nil))) == "hello")
        #expect(!GroupMessageStep.needsStanding(f.own, ownUserID: f.own) && GroupMessageStep.needsStanding(f.sender, ownUserID: f.own))
    }

    @Test("without its receiving state the message waits for that key: (channel, sender device, key id)")
    func missingKeyWaits() throws {
        var f = try Fixture()
        let envelope = try f.envelope("early")
        guard case .waitsForKey(let address) = try GroupMessageStep.decide(f.input(envelope, key: nil)) else {
            Issue.record("did not wait"); return
        }
        #expect(address == f.receiving.record.address)
    }

    @Test("T16: a state owned by another user refuses the message as a sender mismatch")
    func stateOfAnotherUserRefuses() throws {
        var f = try Fixture()
        let envelope = try f.envelope("forged")
        #expect(throws: ReceiveRefusal.self) { try GroupMessageStep.decide(f.input(envelope, key: f.receiving, from: UserID(newID()))) }
    }

    @Test("§6: posted content whose payload names edit_of is refused")
    func postedContentCannotBeAnEdit() throws {
        var f = try Fixture()
        let envelope = try f.envelope("sneaky", editOf: WireUUID(text: newID()))
        #expect(throws: (any Error).self) { try GroupMessageStep.decide(f.input(envelope, key: f.receiving)) }
    }
}
