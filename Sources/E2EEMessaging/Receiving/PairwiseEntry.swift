import E2EECrypto

/// An envelope with one pairwise entry per recipient device (a DM or an SKD), or one (a link envelope).
protocol PairwiseAddressed {
    /// The entry's bytes for `device`.
    /// - Throws: ``ProtocolError/notARecipient`` when the envelope has none for it.
    func pairwiseMessage(for device: WireUUID) throws -> [UInt8]
}

extension DMEnvelope: PairwiseAddressed {}
extension SKDEnvelope: PairwiseAddressed {}
extension LinkEnvelope: PairwiseAddressed {}

extension PairwiseAddressed {
    /// The entry for `device`, parsed.
    /// - Throws: as ``pairwiseMessage(for:)``, and the pairwise parser's errors.
    func pairwiseEntry(for device: WireUUID) throws -> PairwiseMessage {
        try PairwiseMessage(bytes: pairwiseMessage(for: device))
    }
}
