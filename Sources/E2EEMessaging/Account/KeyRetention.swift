import E2EECrypto
@_spi(StoreInternals) import E2EEKeyStore

/// Runs the retention rules forward secrecy depends on, exactly as docs/spec/protocol.md states them, on
/// open and with every key maintenance run:
/// - a replaced signed prekey is kept 30 days after it was replaced, then wiped (§1), and with
///   it the ephemeral keys accepted under it (§2);
/// - a consumed one-time prekey is kept 7 days after consumption, then wiped (§2);
/// - a prekey that a prekey message waiting for its device to be linked names (a row under
///   `unlinked:`, §10.8) is kept while the message waits, at most 30 days past its own wipe
///   date; the ids are read from the waiting ciphertext (our entry of its DM or SKD envelope);
/// - a receiving sender-key state is wiped 7 days after the last message it decrypted (or its
///   install), once a state for another `key_id` of the same (channel, sender device) exists
///   (§4, ``SenderKeyReceivingState/isExpired(now:newerKeyExists:)``).
/// At exactly the limit a key is kept; after it, wiped.
struct KeyRetention: Sendable {
    let store: KeyStore
    let now: @Sendable () -> StoreTime
    /// This device: whose entry of a waiting envelope names our prekeys (nil: none is read, and
    /// no prekey is kept for a waiting message).
    var device: WireUUID? = nil

    /// How long past its own wipe date a prekey named by a waiting message may be kept (§10.8).
    static let keptForWaitingSeconds: Int64 = 30 * 86_400

    /// Wipes what retention says to; returns the counts.
    /// - Throws: key store errors (nothing is wiped then).
    @discardableResult
    func run() async throws -> RetentionWipe {
        let time = now()
        let seconds = time.microseconds / 1_000_000
        let expired = try await store.receiverSenderKeysWithNewerKey().filter { key in
            // A state that cannot be read is left for the receive path to report.
            guard let state = try? SenderKeyReceivingState(serialized: key.state) else { return false }
            return state.isExpired(now: seconds, newerKeyExists: true)
        }
        let device = device
        return try await store.wipeRetained(
            signedPrekeysRetiredBefore: time.adding(seconds: -ProtocolLimits.signedPrekeyRetentionSeconds),
            oneTimePrekeysConsumedBefore: time.adding(seconds: -ProtocolLimits.oneTimePrekeyGraceSeconds),
            senderKeyStates: expired.map(\.address),
            waitingGrace: device == nil ? 0 : Self.keptForWaitingSeconds,
            named: { content in device.flatMap { Self.prekeys(namedBy: content, for: $0) } })
    }

    /// The signed and one-time prekey ids that `content` (a DM or SKD envelope, canonical base64)
    /// names in `device`'s entry, when that entry is a prekey message; nil for anything else,
    /// malformed content included (it names nothing, and keeps nothing).
    static func prekeys(namedBy content: String, for device: WireUUID) -> NamedPrekeys? {
        guard let bytes = try? Base64.decode(content, maxEncodedLength: ProtocolLimits.maxContentBase64Length),
              let envelope = try? Envelope.decode(bytes) else { return nil }
        let entry: PairwiseMessage?
        switch envelope {
        case .dm(let dm): entry = try? dm.pairwiseEntry(for: device)
        case .senderKeyDistribution(let skd): entry = try? skd.pairwiseEntry(for: device)
        case .group: entry = nil
        }
        guard case .prekey(let message)? = entry else { return nil }
        return NamedPrekeys(signedPrekeyIDs: [message.signedPrekeyID],
                            oneTimePrekeyIDs: message.oneTimePrekeyID == 0 ? [] : [message.oneTimePrekeyID])
    }
}
