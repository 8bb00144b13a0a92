import E2EECrypto
@_spi(StoreInternals) import E2EEKeyStore

/// Messages from an unlinked device of a user with a user key wait for it to be linked
/// (docs/spec/protocol.md §10.8), within bounds: 30 days (longer while a due key change that
/// would let them through waits for the app, until 7 days after it became due), 1,000 per
/// device and 5,000 per user. Rows past them are shown as ``UndecryptableReason/unlinkedDevice``
/// and leave the pending queue.
struct UnlinkedWaitSettlement: Sendable {
    let store: KeyStore
    let events: EventBroadcaster

    /// Settles the rows over the bounds and publishes a timeline change for each. `now` in unix
    /// seconds (the system clock, §10.19).
    /// - Throws: store errors.
    func settle(now: Int64) async throws {
        let reason = UndecryptableReason.unlinkedDevice
        let settled = try await store.settleUnlinkedWaits(
            reason: reason.rawValue, now: now, maximumAge: ProtocolLimits.unlinkedWaitSeconds,
            keptAfterDueChange: ProtocolLimits.unlinkedWaitAfterDueChangeSeconds,
            perDevice: ProtocolLimits.maxUnlinkedWaitsPerDevice, perUser: ProtocolLimits.maxUnlinkedWaitsPerUser)
        for row in settled {
            events.publish(.timeline([TimelineChange(channelID: ChannelID(stored: row.channelID), messageID: MessageID(stored: row.messageID),
                                                     kind: .undecryptable(reason: reason))]))
        }
    }
}
