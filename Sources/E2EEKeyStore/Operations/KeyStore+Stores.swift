extension KeyStore {
    /// The account row and tokens.
    public var accountStore: AccountStore { AccountStore(sealer: sealer) }
    /// The device's identity and signing keys.
    public var identityKeyStore: IdentityKeyStore { IdentityKeyStore(sealer: sealer) }
    /// Signed prekeys and accepted ephemeral keys.
    public var signedPrekeyStore: SignedPrekeyStore { SignedPrekeyStore(sealer: sealer) }
    /// One-time prekeys.
    public var oneTimePrekeyStore: OneTimePrekeyStore { OneTimePrekeyStore(sealer: sealer) }
    /// Pairwise sessions.
    public var sessionStore: SessionStore { SessionStore(sealer: sealer) }
    /// Own sender keys.
    public var ownSenderKeyStore: OwnSenderKeyStore { OwnSenderKeyStore(sealer: sealer) }
    /// Receiving sender-key states and skipped keys.
    public var receiverSenderKeyStore: ReceiverSenderKeyStore { ReceiverSenderKeyStore(sealer: sealer) }
    /// Pinned remote identities.
    public var remoteIdentityStore: RemoteIdentityStore { RemoteIdentityStore() }
    /// The timeline and plaintext cache.
    public var timelineStore: TimelineStore { TimelineStore(sealer: sealer) }
    /// Ciphertexts waiting for keys.
    public var pendingStore: PendingCiphertextStore { PendingCiphertextStore() }
    /// The outbox.
    public var outboxStore: OutboxStore { OutboxStore(sealer: sealer) }
    /// Sync cursors.
    public var syncCursorStore: SyncCursorStore { SyncCursorStore() }
    /// Channels, members and sender-key shares.
    public var channelStore: ChannelStore { ChannelStore() }
    /// Who receives keys: per-channel recipients, known devices, DM participants, policies.
    public var recipientStore: RecipientStore { RecipientStore() }
    /// What this device decided about its channels: pinned kinds, requests, member standings.
    public var channelTrustStore: ChannelTrustStore { ChannelTrustStore() }
}
