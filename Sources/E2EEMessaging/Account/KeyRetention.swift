import E2EECrypto
@_spi(StoreInternals) import E2EEKeyStore

/// Runs the retention rules forward secrecy depends on, exactly as docs/spec/protocol.md states them, on
/// open and with every key maintenance run:
/// - a replaced signed prekey is kept 30 days after it was replaced, then wiped (§1), and with
///   it the ephemeral keys accepted under it (§2);
/// - a consumed one-time prekey is kept 7 days after consumption, then wiped (§2);
/// - a receiving sender-key state is wiped 7 days after the last message it decrypted (or its
///   install), once a state for another `key_id` of the same (channel, sender device) exists
///   (§4, ``SenderKeyReceivingState/isExpired(now:newerKeyExists:)``).
/// At exactly the limit a key is kept; after it, wiped.
struct KeyRetention: Sendable {
    let store: KeyStore
    let now: @Sendable () -> StoreTime

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
        return try await store.wipeRetained(
            signedPrekeysRetiredBefore: time.adding(seconds: -ProtocolLimits.signedPrekeyRetentionSeconds),
            oneTimePrekeysConsumedBefore: time.adding(seconds: -ProtocolLimits.oneTimePrekeyGraceSeconds),
            senderKeyStates: expired.map(\.address))
    }
}
