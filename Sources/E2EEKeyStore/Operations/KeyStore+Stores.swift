extension KeyStore {
    /// The account row and tokens.
    package var accountStore: AccountStore { AccountStore(sealer: sealer) }
    /// The device's identity and signing keys.
    package var identityKeyStore: IdentityKeyStore { IdentityKeyStore(sealer: sealer) }
    /// Signed prekeys and accepted ephemeral keys.
    package var signedPrekeyStore: SignedPrekeyStore { SignedPrekeyStore(sealer: sealer) }
    /// One-time prekeys.
    package var oneTimePrekeyStore: OneTimePrekeyStore { OneTimePrekeyStore(sealer: sealer) }
    /// Pairwise sessions.
    package var sessionStore: SessionStore { SessionStore(sealer: sealer) }
    /// Own sender keys.
    package var ownSenderKeyStore: OwnSenderKeyStore { OwnSenderKeyStore(sealer: sealer) }
    /// Receiving sender-key states and skipped keys.
    package var receiverSenderKeyStore: ReceiverSenderKeyStore { ReceiverSenderKeyStore(sealer: sealer) }
    /// Pinned remote identities.
    package var remoteIdentityStore: RemoteIdentityStore { RemoteIdentityStore() }
    /// The timeline and plaintext cache.
    package var timelineStore: TimelineStore { TimelineStore(sealer: sealer) }
    /// Ciphertexts waiting for keys.
    package var pendingStore: PendingCiphertextStore { PendingCiphertextStore() }
    /// The outbox.
    package var outboxStore: OutboxStore { OutboxStore(sealer: sealer) }
    /// Sync cursors.
    package var syncCursorStore: SyncCursorStore { SyncCursorStore() }
    /// Channels, members and sender-key shares.
    package var channelStore: ChannelStore { ChannelStore() }
    /// Who receives keys: per-channel recipients, known devices, DM participants, policies.
    package var recipientStore: RecipientStore { RecipientStore() }
    /// What this device decided about its channels: pinned kinds, requests, member standings.
    package var channelTrustStore: ChannelTrustStore { ChannelTrustStore() }
    /// Contacts' user keys, device links and this device's clock readings (text 1.3).
    package var contactKeyStore: ContactKeyStore { ContactKeyStore() }
    /// Our own user's key: role, the primary file's mirror, legacy own devices (text 1.3).
    package var ownUserKeyStore: OwnUserKeyStore { OwnUserKeyStore() }
}
