/// What processing an SKD decided (docs/spec/protocol.md §4).
public enum SenderKeyDistributionOutcome: Sendable {
    /// An unknown sender key: store this new receiving state.
    case install(SenderKeyReceivingState)
    /// The same sender key is already known: nothing changes, whatever the SKD's iteration (a
    /// chain never rolls back; ahead, the receiver derives forward itself).
    case ignored
}

extension SenderKeyDistribution {
    /// Decides what an SKD does, without changing anything.
    ///
    /// - Parameters:
    ///   - postedChannel: the channel the SKD envelope was posted in.
    ///   - senderDevice: the device whose pairwise session decrypted the SKD entry.
    ///   - existing: the receiving state already stored for (channel, `senderDevice`, ``keyID``),
    ///     if any.
    ///   - now: unix seconds, recorded as the install time (retention, §4).
    /// - Throws: ``ProtocolError/channelMismatch`` when the SKD names another channel,
    ///   ``ProtocolError/senderKeyConflict`` when `existing` has a different signing key, and
    ///   ``ProtocolError/malformed(_:reason:)`` when `existing` belongs to another sender key.
    public func process(postedChannel: WireUUID, senderDevice: WireUUID, existing: SenderKeyReceivingState?, now: Int64) throws -> SenderKeyDistributionOutcome {
        guard channel == postedChannel else { throw ProtocolError.channelMismatch }
        guard let existing else {
            return .install(SenderKeyReceivingState(distribution: self, senderDevice: senderDevice, installedAt: now))
        }
        guard existing.channel == channel, existing.senderDevice == senderDevice, existing.keyID == keyID else {
            throw ProtocolError.malformed(.senderKeyState, reason: "existing state belongs to another sender key")
        }
        guard existing.signingPublicKey == signingPublicKey else { throw ProtocolError.senderKeyConflict }
        return .ignored
    }
}
