/// What a receiver keeps for one (channel, sender device, key_id) (docs/spec/protocol.md §4): the chain
/// key at the next expected iteration, `SK_sig_pub`, and the message keys of skipped iterations.
///
/// A value type: `decrypt(_:channel:now:)` returns the new state and never changes anything on
/// failure, so "on failure, stored state is unchanged" holds by construction. Not `Codable`:
/// stored only through ``serialized()``, which the key store seals.
public struct SenderKeyReceivingState: Sendable, CustomStringConvertible {
    /// The channel of the sender key.
    public let channel: WireUUID
    /// The device that sends with it.
    public let senderDevice: WireUUID
    /// The sender key's id.
    public let keyID: UInt32
    /// The iteration of the SKD it was installed from: older messages are unreadable here.
    public let installedIteration: UInt32
    /// The next iteration the chain key belongs to.
    public let nextIteration: UInt32
    /// `CK_nextIteration`.
    let chainKey: SecretBytes
    /// `SK_sig_pub`.
    public let signingPublicKey: Ed25519.PublicKey
    /// Message keys of skipped iterations (at most ``ProtocolLimits/maxStoredSenderKeySkippedKeys``).
    let skippedKeys: [UInt32: SecretBytes]
    /// The highest iteration whose skipped key was dropped by the cap, if any.
    public let evictedThrough: UInt32?
    /// Unix seconds when it was installed.
    public let installedAt: Int64
    /// Unix seconds of the last message it decrypted, if any.
    public let lastDecryptedAt: Int64?

    init(
        channel: WireUUID, senderDevice: WireUUID, keyID: UInt32, installedIteration: UInt32, nextIteration: UInt32,
        chainKey: SecretBytes, signingPublicKey: Ed25519.PublicKey, skippedKeys: [UInt32: SecretBytes],
        evictedThrough: UInt32?, installedAt: Int64, lastDecryptedAt: Int64?
    ) {
        self.channel = channel
        self.senderDevice = senderDevice
        self.keyID = keyID
        self.installedIteration = installedIteration
        self.nextIteration = nextIteration
        self.chainKey = chainKey
        self.signingPublicKey = signingPublicKey
        self.skippedKeys = skippedKeys
        self.evictedThrough = evictedThrough
        self.installedAt = installedAt
        self.lastDecryptedAt = lastDecryptedAt
    }

    /// A fresh state from an SKD.
    init(distribution skd: SenderKeyDistribution, senderDevice: WireUUID, installedAt: Int64) {
        self.init(
            channel: skd.channel, senderDevice: senderDevice, keyID: skd.keyID, installedIteration: skd.iteration,
            nextIteration: skd.iteration, chainKey: skd.chainKey, signingPublicKey: skd.signingPublicKey,
            skippedKeys: [:], evictedThrough: nil, installedAt: installedAt, lastDecryptedAt: nil
        )
    }

    /// The iterations whose skipped message keys are stored, ascending.
    public var skippedIterations: [UInt32] { skippedKeys.keys.sorted() }

    /// `true` when retention (§4) says to wipe this state: another `key_id` of the same
    /// (channel, sender device) exists and ``ProtocolLimits/senderKeyStateRetentionSeconds``
    /// have passed since the last decrypted message (or the install, if none). At exactly the
    /// retention period the state is kept; after it, wiped.
    public func isExpired(now: Int64, newerKeyExists: Bool) -> Bool {
        guard newerKeyExists else { return false }
        let lastUse = lastDecryptedAt ?? installedAt
        return now - lastUse > ProtocolLimits.senderKeyStateRetentionSeconds
    }

    /// A copy with other chain fields; used by decryption to build the committed state.
    func advanced(nextIteration: UInt32, chainKey: SecretBytes, skippedKeys: [UInt32: SecretBytes], evictedThrough: UInt32?, now: Int64) -> SenderKeyReceivingState {
        SenderKeyReceivingState(
            channel: channel, senderDevice: senderDevice, keyID: keyID, installedIteration: installedIteration,
            nextIteration: nextIteration, chainKey: chainKey, signingPublicKey: signingPublicKey, skippedKeys: skippedKeys,
            evictedThrough: evictedThrough, installedAt: installedAt, lastDecryptedAt: now
        )
    }

    /// Never shows key material.
    public var description: String {
        "SenderKeyReceivingState(channel: \(channel), senderDevice: \(senderDevice), keyID: \(keyID), nextIteration: \(nextIteration), skipped: \(skippedKeys.count), <redacted>)"
    }
}
