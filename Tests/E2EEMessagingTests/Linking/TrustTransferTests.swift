import E2EECrypto
@testable import E2EEMessaging
import Testing

/// docs/spec/protocol.md §11.4–§11.6: the trust part's sender keeps at most 16 messages beyond
/// the highest ack; the receiver takes them in order, holds later ones, and imports only when
/// the counts and the digest hold.
@Suite("Trust transfer")
struct TrustTransferTests {
    let transferID = WireUUID.fixture(0x70)

    /// `count` channel records (19-byte bodies), enough for several chunks when large.
    func records(_ count: Int) -> [TrustRecord] {
        (0..<count).map { index in
            var bytes = [UInt8](repeating: 0, count: 16)
            bytes[12] = UInt8(index >> 24 & 0xFF); bytes[13] = UInt8(index >> 16 & 0xFF); bytes[14] = UInt8(index >> 8 & 0xFF); bytes[15] = UInt8(index & 0xFF)
            bytes[0] = 0x11
            return .channel(channelID: (try? WireUUID(bytes: bytes)) ?? WireUUID.fixture(0x11), kind: .group, standing: .accepted)
        }
    }

    func sender(_ count: Int) throws -> TrustTransferSender {
        try TrustTransferSender(transferID: transferID, channelID: ChannelID("c"), newDevice: DeviceID("n"), records: records(count))
    }

    @Test("the window: 16 messages on ack(0), more only as acks rise, never past what was sent; complete at the last")
    func window() throws {
        var sender = try sender(60_000)
        let total = sender.total
        #expect(total > 18, "setting up: several chunks (\(total) messages)")
        #expect(sender.acknowledged(0).count == 16)
        #expect(sender.acknowledged(0).isEmpty, "a repeated ack sends nothing new")
        #expect(sender.acknowledged(3).count == 3, "ack(3): up to index 18")
        #expect(sender.acknowledged(1_000).count == Int(total) - 19, "an ack beyond what was sent counts as one of everything sent (19)")
        let next: UInt32 = 19
        #expect(!sender.isComplete(next))
        #expect(sender.isComplete(total))
    }

    @Test("everything the sender sends, received in any order with duplicates, imports once with the same records")
    func roundTrip() throws {
        let original = records(9_000)
        var sender = try TrustTransferSender(transferID: transferID, channelID: ChannelID("c"), newDevice: DeviceID("n"), records: original)
        var receiver = TrustTransferReceiver(transferID: transferID)
        var imported: [TrustRecord]?
        var done = false
        var outgoing = sender.acknowledged(0)
        var rounds = 0
        while !done, rounds < 100 {
            rounds += 1
            // Reversed, and each twice: the receiver holds what is early and skips what it has.
            var highest: UInt32 = 0
            for message in outgoing.reversed() + outgoing {
                switch receiver.receive(message) {
                case .acknowledge(let next): highest = max(highest, next)
                case .importTrust(let records, let next):
                    #expect(imported == nil, "imported twice")
                    imported = records
                    highest = max(highest, next)
                case .done(let next): highest = max(highest, next); done = true
                case .failed(let reason): Issue.record("failed: \(reason)"); return
                case .none: break
                }
            }
            outgoing = sender.acknowledged(highest)
        }
        #expect(done)
        #expect(imported == original)
    }

    @Test("a chunk altered or left out fails the digest or the count: nothing is imported")
    func mismatch() throws {
        var sender = try sender(10)
        let messages = sender.acknowledged(0)
        guard case .manifest(let manifest) = messages[0], case .chunk(_, let index, let records) = messages[1] else {
            Issue.record("setting up")
            return
        }
        var altered = records.withUnsafeBytes { Array($0) }
        altered[altered.count - 1] ^= 0x01  // the last record's standing byte: still parses
        var receiver = TrustTransferReceiver(transferID: transferID)
        #expect(receiver.receive(.manifest(manifest)) == .acknowledge(1))
        let step = receiver.receive(.chunk(transferID: transferID, index: index, records: SecretBytes(copying: altered)))
        guard case .failed = step else {
            Issue.record("an altered chunk imported: \(step)")
            return
        }
    }

    @Test("another transfer's messages change nothing")
    func otherTransfer() throws {
        var sender = try TrustTransferSender(transferID: WireUUID.fixture(0x71), channelID: ChannelID("c"), newDevice: DeviceID("n"),
                                             records: records(3))
        var receiver = TrustTransferReceiver(transferID: transferID)
        for message in sender.acknowledged(0) { #expect(receiver.receive(message) == .none) }
    }
}
