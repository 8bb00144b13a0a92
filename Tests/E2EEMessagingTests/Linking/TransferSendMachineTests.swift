import E2EECrypto
@_spi(StoreInternals) import E2EEKeyStore
@testable import E2EEMessaging
import Testing

/// docs/spec/protocol.md §11.4, the primary's rules: at most 16 messages beyond the highest
/// acknowledgement, acknowledgements counted only up to what was sent, phase 2 fixed on
/// `ack(c₁ + 1)`, the window resent on a repeated acknowledgement (at most once a minute), only
/// the acknowledged message on a timeout (60 s doubling to 1 h), 24 hours without progress fail.
@Suite("Transfer send machine")
struct TransferSendMachineTests {
    static let second: Int64 = 1_000_000
    let transferID = WireUUID.fixture(0x70)

    func machine(chunks: UInt32) throws -> TransferSendMachine {
        let manifest = try TransferManifest(transferID: transferID, index: 0, phase: .snapshot, trustCount: chunks, recordCount: chunks,
                                            chunkCount: chunks, truncated: false, digest: [UInt8](repeating: 0, count: 32))
        let state = OutgoingTransferState(transferID: transferID.text, deviceID: "n", channelID: "c", manifest1: [], startedAt: 0,
                                          progressAt: 0, timeoutAt: 60 * Self.second, timeoutSeconds: 60)
        return TransferSendMachine(state: state, manifest1: manifest, manifest2: nil)
    }

    func phase2(chunks: UInt32, at index: UInt32) throws -> TransferManifest {
        try TransferManifest(transferID: transferID, index: index, phase: .changes, trustCount: chunks, recordCount: chunks,
                             chunkCount: chunks, truncated: false, digest: [UInt8](repeating: 0, count: 32))
    }

    @Test("16 messages on start, more only as acks rise, never past what was sent; phase 2 fixed at ack(c₁ + 1); complete at the last")
    func window() throws {
        var machine = try machine(chunks: 40)
        let first = machine.due()
        #expect(first == Array(0..<16))
        for index in first { machine.sent(index, now: 0) }
        #expect(machine.acknowledged(0, now: 1).send.isEmpty)
        let three = machine.acknowledged(3, now: 2)
        #expect(three.send == [16, 17, 18])
        for index in three.send { machine.sent(index, now: 2) }
        let beyond = machine.acknowledged(1_000, now: 3)
        #expect(machine.state.highestAck == 19, "an ack beyond what was sent counts as one of everything sent")
        #expect(beyond.send == Array(19..<35))
        for index in beyond.send { machine.sent(index, now: 3) }
        let rest = machine.acknowledged(35, now: 4)
        #expect(rest.send == Array(35...40), "phase 1 only (through c₁) until phase 2 is fixed")
        for index in rest.send { machine.sent(index, now: 4) }
        let fix = machine.acknowledged(41, now: 5)
        #expect(fix.fixPhase2 && fix.send.isEmpty && !fix.complete)
        let afterFix = machine.phase2Fixed(try phase2(chunks: 2, at: 41), encoded: [])
        #expect(afterFix == [41, 42, 43])
        for index in afterFix { machine.sent(index, now: 5) }
        #expect(machine.total == 44)
        #expect(machine.acknowledged(44, now: 6).complete)
    }

    @Test("a repeated ack resends the window, at most once a minute; a timeout resends only the acknowledged message, doubling to an hour")
    func resends() throws {
        var machine = try machine(chunks: 40)
        for index in machine.due() { machine.sent(index, now: 0) }
        let sent = machine.acknowledged(5, now: 10 * Self.second).send
        for index in sent { machine.sent(index, now: 10 * Self.second) }
        #expect(machine.state.sentUpTo == 21)
        let repeated = machine.acknowledged(5, now: 11 * Self.second)
        #expect(repeated.resend == Array(5..<21), "the window from the acknowledged index")
        #expect(machine.acknowledged(5, now: 30 * Self.second).resend.isEmpty, "not twice within a minute")
        #expect(machine.acknowledged(5, now: 72 * Self.second).resend == Array(5..<21))

        #expect(machine.tick(now: 69 * Self.second).resend.isEmpty, "no timeout before 60 s without progress")
        #expect(machine.tick(now: 70 * Self.second).resend == [5], "only the message at the acknowledged index")
        #expect(machine.state.timeoutSeconds == 120)
        #expect(machine.tick(now: 189 * Self.second).resend.isEmpty)
        #expect(machine.tick(now: 190 * Self.second).resend == [5])
        var now: Int64 = 190 * Self.second
        for _ in 0..<10 {
            now = machine.state.timeoutAt
            _ = machine.tick(now: now)
        }
        #expect(machine.state.timeoutSeconds == 3_600, "doubling stops at an hour")
        #expect(machine.tick(now: 10 * Self.second + 86_401 * Self.second).failure != nil, "24 hours without progress fail the transfer")
    }

    @Test("never more than 16 messages beyond the highest acknowledgement, whatever the acks")
    func neverBeyondWindow() throws {
        var machine = try machine(chunks: 200)
        var generator = SystemRandomNumberGenerator()
        for index in machine.due() { machine.sent(index, now: 0) }
        for step in 1...500 {
            let ack = UInt32.random(in: 0...(machine.state.sentUpTo + 5), using: &generator)
            let actions = machine.acknowledged(ack, now: Int64(step) * Self.second)
            for index in actions.send { machine.sent(index, now: Int64(step) * Self.second) }
            #expect(machine.state.sentUpTo <= machine.state.highestAck + 16)
            #expect(machine.state.highestAck <= machine.state.sentUpTo)
        }
    }
}
