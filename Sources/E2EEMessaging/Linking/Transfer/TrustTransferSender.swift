import E2EECrypto
@_spi(StoreInternals) import E2EEKeyStore

/// The primary's side of a transfer's trust part (docs/spec/protocol.md §11.1, §11.3–§11.4):
/// on the new device's `ack(0)` it takes the snapshot of its trust decisions, sends manifest 1
/// at index 0, the chunks at 1…c and manifest 2 (phase 2, what changed since — nothing, as the
/// snapshot is taken at the first ack) at c + 1, never more than 16 messages beyond the highest
/// acknowledgement, only to the granted device in the transfer's channel; on the last ack it
/// deletes the channel.
struct TrustTransferSender: Sendable {
    /// How many messages may go beyond the highest acknowledgement.
    static let window: UInt32 = 16

    let transferID: WireUUID
    let channelID: ChannelID
    let newDevice: DeviceID
    private let messages: [LinkPlaintext]
    private(set) var sentUpTo: UInt32 = 0

    /// The transfer of `records` (the snapshot) under `transferID`.
    init(transferID: WireUUID, channelID: ChannelID, newDevice: DeviceID, records: [TrustRecord]) throws {
        self.transferID = transferID
        self.channelID = channelID
        self.newDevice = newDevice
        let phase1 = TrustChunks(records.map(TransferRecord.trust))
        let count = UInt32(clamping: phase1.recordCount), chunks = UInt32(clamping: phase1.chunks.count)
        var messages: [LinkPlaintext] = [.manifest(try TransferManifest(transferID: transferID, index: 0, phase: .snapshot, trustCount: count,
                                                                          recordCount: count, chunkCount: chunks, truncated: false,
                                                                          digest: phase1.digest))]
        for (offset, chunk) in phase1.chunks.enumerated() {
            messages.append(.chunk(transferID: transferID, index: UInt32(offset + 1), records: chunk))
        }
        let empty = TrustChunks([])
        messages.append(.manifest(try TransferManifest(transferID: transferID, index: chunks + 1, phase: .changes, trustCount: 0, recordCount: 0,
                                                       chunkCount: 0, truncated: false, digest: empty.digest)))
        self.messages = messages
    }

    /// How many messages the transfer has (the last acknowledgement is this number).
    var total: UInt32 { UInt32(messages.count) }

    /// The messages to send after the new device acknowledged everything below `next` (an
    /// acknowledgement beyond what was sent counts only up to it).
    mutating func acknowledged(_ next: UInt32) -> [LinkPlaintext] {
        let held = min(next, sentUpTo)
        let end = min(total, held + Self.window)
        guard end > sentUpTo else { return [] }
        let due = Array(messages[Int(sentUpTo)..<Int(end)])
        sentUpTo = end
        return due
    }

    /// Whether `next` acknowledges the whole transfer.
    func isComplete(_ next: UInt32) -> Bool { next >= total && sentUpTo == total }
}
