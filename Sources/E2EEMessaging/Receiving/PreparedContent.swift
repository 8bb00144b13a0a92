import E2EECrypto
import E2EEKeyStore

/// The work on a message that needs no protocol state, done ahead of its serial lane and in
/// parallel (``ContentPreparation``): the envelope decoded, a DM's or SKD's entry for this
/// device parsed (which validates the identity keys of a prekey message), and a group
/// message's signature verified once its sender key is known (``ReceiveLane``).
///
/// It only saves work: the lane makes the same checks in the same order and reaches the same
/// outcome with or without it. A decoding error is kept and thrown where the lane would have
/// thrown it; a failed verification or parse is not kept (the lane repeats it and fails there).
struct PreparedContent: Sendable {
    /// The decoded envelope, or the error decoding it threw.
    let received: Result<ReceivedContent, any Error>
    /// A DM's or SKD's pairwise message for this device, parsed.
    let pairwise: PairwiseMessage?
    /// A group message's signature, verified with the sender key it names.
    var verifiedGroup: VerifiedGroupEnvelope?
    /// Whether verifying ahead was tried (it is tried once).
    var signatureChecked = false

    /// The group envelope, when the content decoded as one.
    var groupEnvelope: GroupEnvelope? {
        guard case .success(let content) = received, case .group(let envelope) = content.envelope else { return nil }
        return envelope
    }
}

/// Prepares a batch's messages (``PreparedContent``) and verifies group signatures, split
/// over the processor cores (``ParallelWork``).
enum ContentPreparation {
    /// Decodes every envelope message of `lanes` and parses its pairwise entry, in place; lane
    /// order and contents are unchanged.
    /// - Parameter device: this device (nil when its id is not a UUID: no entry can be ours).
    static func prepare(_ lanes: inout [[IncomingMessage]], device: WireUUID?) async {
        var positions: [(lane: Int, index: Int)] = []
        for (lane, messages) in lanes.enumerated() {
            for (index, message) in messages.enumerated() where message.isEnvelope && message.prepared == nil {
                positions.append((lane, index))
            }
        }
        let prepared: [PreparedContent]
        do {  // the tasks read a snapshot, released before the lanes are written: they stay unshared, and are not copied
            let snapshot = lanes
            prepared = await ParallelWork.map(positions) { prepare(snapshot[$0.lane][$0.index], device: device) }
        }
        for (position, content) in zip(positions, prepared) { lanes[position.lane][position.index].prepared = content }
    }

    /// Each envelope's signature verified for `channel` with `signingKey` (nil where it fails).
    static func verify(_ envelopes: [GroupEnvelope], channel: WireUUID, signingKey: Ed25519.PublicKey) async -> [VerifiedGroupEnvelope?] {
        await ParallelWork.map(envelopes) { try? VerifiedGroupEnvelope($0, channel: channel, signingKey: signingKey) }
    }

    private static func prepare(_ message: IncomingMessage, device: WireUUID?) -> PreparedContent {
        let received = Result { try message.receivedContent() }
        var pairwise: PairwiseMessage?
        if let device {
            switch try? received.get().envelope {
            case .dm(let envelope): pairwise = try? envelope.pairwiseEntry(for: device)
            case .senderKeyDistribution(let envelope): pairwise = try? envelope.pairwiseEntry(for: device)
            case .group, nil: break
            }
        }
        return PreparedContent(received: received, pairwise: pairwise)
    }
}
