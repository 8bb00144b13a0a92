import E2EECrypto
@_spi(StoreInternals) @testable import E2EEKeyStore
import Foundation

/// The content of a golden store: a small account written through the store's real operations
/// (the ones the messaging layer calls), so the file holds every kind of row the product makes —
/// keys, sessions current and archived, sender keys both ways, decrypted, edited, duplicate,
/// pending, undecryptable, unencrypted and erased messages, tombstones (one before its message),
/// a sender key distribution's control row, refused input, outbox entries in several states, a sync
/// cursor, a departure and a removed-from-server mark.
enum GoldenStore {
    /// The store key of every golden store (a fixed test key: the files are fixtures, not secrets).
    static let key: [UInt8] = (0..<32).map { UInt8(0x60 + $0) }
    /// Our own account.
    static let ownUser = "user-a", ownDevice = "device-a"
    /// The peers.
    static let userB = "user-b", deviceB = "device-b", userC = "user-c", deviceC = "device-c"
    /// The channels: a group, a DM, and one this account left.
    static let group = "channel-g", direct = "channel-d", left = "channel-left"
    /// The group's sender-key addresses.
    static let senderKeyB = SenderKeyAddress(channelID: group, senderDeviceID: deviceB, keyID: 1)
    static let senderKeyC = SenderKeyAddress(channelID: group, senderDeviceID: deviceC, keyID: 4)

    /// Server time `seconds` after a fixed origin.
    static func time(_ seconds: Int64) -> StoreTime { StoreTime(microseconds: 1_800_000_000_000_000 + seconds * 1_000_000) }
    static func secret(_ text: String) -> SecretBytes { SecretBytes(copying: Array(text.utf8)) }

    /// A received row of `channel` from `user`/`device`.
    static func row(_ id: String, _ channel: String = group, user: String = userB, device: String = deviceB, at seconds: Int64,
                    state: TimelineState = .decrypted, text: String? = nil) -> TimelineMessage {
        TimelineMessage(messageID: id, channelID: channel, senderUserID: user, senderDeviceID: device, createdAt: time(seconds),
                        contentHash: SHA256.hash(Array("envelope \(id)".utf8)), state: state, plaintext: text.map(secret))
    }

    /// A decryption without key effects.
    static func decrypted(_ row: TimelineMessage, kind: TimelineRowKind = .message, payloadID: String? = nil, editedAt: StoreTime? = nil,
                          deleteOf: String? = nil, senderKey: ReceiverSenderKey? = nil, session: SessionUpdate? = nil) -> ReceiveWrite {
        ReceiveWrite(action: .decrypted(DecryptionCommit(message: row, processedAt: row.createdAt)),
                     facts: ReceivedFacts(kind: kind, payloadID: payloadID, editedAt: editedAt, deleteOf: deleteOf),
                     session: session, senderKey: senderKey)
    }

    /// A payload JSON, as our own sends store it.
    static func payload(_ id: String, _ text: String) throws -> SecretBytes {
        try MessagePayload(id: WireUUID(text: id), timestamp: 1_800_000_000_000, text: text).encodedJSON()
    }

    /// Writes the golden content into `store` (a new, empty store).
    static func fill(_ store: KeyStore) async throws {
        try await store.storeAccount(AccountRecord(serverURL: "https://chat.example", userID: ownUser, deviceID: ownDevice,
                                                   accessToken: secret("golden access"), refreshToken: secret("golden refresh"), updatedAt: time(0)))
        try await store.storeIdentityKeyPair(IdentityKeyPair(identityPublic: [UInt8](repeating: 1, count: 32), identityPrivate: secret("identity private"),
                                                             signingPublic: [UInt8](repeating: 2, count: 32), signingPrivate: secret("signing private"),
                                                             createdAt: time(0)))
        try await store.rotateSignedPrekey(SignedPrekey(id: 1, publicKey: [UInt8](repeating: 3, count: 32), privateKey: secret("signed prekey private"),
                                                        signature: [UInt8](repeating: 4, count: 64), isCurrent: true, createdAt: time(0)))
        _ = try await store.addOneTimePrekeys(count: 3, now: time(0)) { id in
            OneTimePrekeyMaterial(publicKey: [UInt8](repeating: UInt8(10 + id), count: 32), privateKey: secret("one-time prekey \(id)"))
        }
        try await store.markOneTimePrekeysPublished(ids: [1, 2])
        let cSession = try await store.installSession(userID: userC, deviceID: deviceC, state: secret("session with c"), at: time(0))
        try await store.storeNewSenderKey(OwnSenderKey(channelID: group, keyID: 1, state: secret("own sender key 0"), isCurrent: true,
                                                       messagesSent: 0, createdAt: time(0)))
        _ = try await store.recordIdentity(RemoteIdentityClaim(userID: userC, deviceID: deviceC, identityBlob: [UInt8](repeating: 5, count: 65)),
                                           at: time(0))

        // Device b's lane: its sender key distribution (a prekey message: new pin, one-time prekey
        // and EK_A used, a new session over an older one), messages, a duplicate by payload id,
        // an erased message and three tombstones (one before its message, one whose message never
        // came), then an edit.
        var skd = row("g-skd", at: 1)
        skd.plaintext = nil
        let bSessions = SessionUpdate(userID: userB, deviceID: deviceB, states: [
            SessionUpdate.State(sessionID: "b-session-2", state: secret("session with b, 2"), isCurrent: true),
            SessionUpdate.State(sessionID: "b-session-1", state: secret("session with b, 1"), isCurrent: false),
        ])
        let bKey = ReceiverSenderKey(address: senderKeyB, senderUserID: userB, state: secret("b sender key at 7"), createdAt: time(1), updatedAt: time(9))
        var skdWrite = decrypted(skd, kind: .control, session: bSessions)
        skdWrite.action = .decrypted(DecryptionCommit(
            message: skd, consumedOneTimePrekeyID: 1,
            acceptedEphemeralKey: AcceptedEphemeralKey(publicKey: [UInt8](repeating: 6, count: 32), signedPrekeyID: 1),
            identity: RemoteIdentityClaim(userID: userB, deviceID: deviceB, identityBlob: [UInt8](repeating: 7, count: 65)), processedAt: time(1)))
        _ = try await store.storeReceiveBatch([
            skdWrite,
            decrypted(row("g-1", at: 2, text: "first from b"), payloadID: "p-g1"),
            decrypted(row("g-2", at: 3, text: "second from b"), payloadID: "p-g2"),
            decrypted(row("g-3", at: 3, text: "soon erased"), payloadID: "p-g3"),
            decrypted(row("g-4", at: 4), kind: .control, payloadID: "p-g4", deleteOf: "p-g3"),
            decrypted(row("g-5", at: 5), kind: .control, payloadID: "p-g5", deleteOf: "p-g9"),
            decrypted(row("g-6", at: 6), kind: .control, payloadID: "p-g6", deleteOf: "p-g10"),
            decrypted(row("g-7", at: 7, text: "reuses a payload id"), payloadID: "p-g1"),
            decrypted(row("g-9", at: 9, text: "erased on arrival"), payloadID: "p-g9", senderKey: bKey),
        ])
        _ = try await store.storeReceiveBatch([
            decrypted(row("g-2", at: 3, text: "second from b, edited"), editedAt: time(20)),
        ])

        // Device c's lane: a message waiting for its sender key, an undecryptable one, a
        // protocol-1 message, a refused edit and a changed identity.
        _ = try await store.storeReceiveBatch([
            ReceiveWrite(action: .pending(row("g-c1", user: userC, device: deviceC, at: 10, state: .pendingKey), content: "envelope g-c1",
                                          waitingFor: "sender_key:\(senderKeyC)", receivedAt: time(10)),
                         facts: ReceivedFacts(kind: .message)),
            ReceiveWrite(action: .outcome(row("g-c2", user: userC, device: deviceC, at: 11, state: .undecryptable(reason: "bad_signature"))),
                         facts: ReceivedFacts(kind: .message)),
            ReceiveWrite(action: .outcome(row("g-c3", user: userC, device: deviceC, at: 12, state: .unencrypted, text: "protocol 1 text")),
                         facts: ReceivedFacts(kind: .message)),
            ReceiveWrite(action: .refused(RefusedInput(channelID: group, messageID: "g-1", kind: .edit, reason: "sender_mismatch",
                                                       contentHash: SHA256.hash(Array("refused edit".utf8)), seenAt: time(13))),
                         facts: ReceivedFacts(kind: .message)),
            ReceiveWrite(action: .outcome(row("g-c4", user: userC, device: deviceC, at: 14, state: .undecryptable(reason: "identity_changed"))),
                         facts: ReceivedFacts(kind: .message),
                         identityChange: RemoteIdentityClaim(userID: userC, deviceID: deviceC, identityBlob: [UInt8](repeating: 8, count: 65))),
        ])

        // The DM with b, and a channel this account left.
        _ = try await store.storeReceiveBatch([
            decrypted(row("d-1", direct, at: 15, text: "a direct message"), payloadID: "p-d1",
                      session: SessionUpdate(userID: userB, deviceID: deviceB, states: [
                          SessionUpdate.State(sessionID: "b-session-2", state: secret("session with b, 2 advanced"), isCurrent: true),
                          SessionUpdate.State(sessionID: "b-session-1", state: secret("session with b, 1"), isCurrent: false),
                      ])),
        ])
        _ = try await store.storeReceiveBatch([decrypted(row("l-1", left, user: userC, device: deviceC, at: 16, text: "before leaving"), payloadID: "p-l1")])
        try await store.recordDeparture(channelID: left)

        // Our own sends: one sent (its timeline row), one DM queued, one failed.
        try await store.queueOutgoingMessage(OutgoingCommit(localID: "local-1", channelID: group, content: "group envelope local-1",
                                                            plaintext: try payload("0b6c2c1e-8a43-4b0e-9a61-3f5d2b8e7c11", "own group text"),
                                                            senderKey: OwnSenderKeyAdvance(keyID: 1, state: secret("own sender key 1")), queuedAt: time(17)))
        try await store.markSending(localID: "local-1", at: time(17))
        try await store.markSent(localID: "local-1", serverMessageID: "s-1", createdAt: time(18), senderUserID: ownUser, senderDeviceID: ownDevice)
        try await store.queueOutgoingMessage(OutgoingCommit(localID: "local-2", channelID: direct, content: "dm envelope local-2",
                                                            plaintext: try payload("5d1e7f20-3c4b-4a59-8e6d-7f8091a2b3c4", "own dm text"),
                                                            sessions: [SessionUpdate(userID: userC, deviceID: deviceC,
                                                                                     states: [SessionUpdate.State(sessionID: cSession, state: secret("session with c, sent"), isCurrent: true)])],
                                                            queuedAt: time(19)))
        try await store.queueOutgoingMessage(OutgoingCommit(localID: "local-3", channelID: group, content: "group envelope local-3",
                                                            plaintext: try payload("9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d", "refused by the server"),
                                                            senderKey: OwnSenderKeyAdvance(keyID: 1, state: secret("own sender key 2")), queuedAt: time(21)))
        try await store.markSending(localID: "local-3", at: time(21))
        try await store.markFailed(localID: "local-3", error: "403 not a member", giveUp: true, at: time(22))

        try await store.storeSyncCursor(SyncCursor(channelID: group, newest: TimelineCursor(createdAt: time(18), messageID: "s-1"),
                                                   oldest: TimelineCursor(createdAt: time(1), messageID: "g-skd"), historyComplete: true,
                                                   updatedAt: time(23)))
        _ = try await store.markRemovedFromServer(messageID: "g-1", channelID: group, at: time(24))
    }
}
