import E2EECrypto
@_spi(StoreInternals) @testable import E2EEKeyStore

/// Receive writes as the pipeline hands them to ``KeyStore/storeReceiveBatch(_:)``, the store's
/// one receive write, for tests that store received messages.
enum ReceiveWrites {
    /// A decryption of `row` (a `message` row unless `kind` says otherwise) with its effects.
    static func decrypted(_ row: TimelineMessage, kind: TimelineRowKind = .message, payloadID: String? = nil, editedAt: StoreTime? = nil,
                          senderKey: ReceiverSenderKey? = nil, session: SessionUpdate? = nil, consumedOneTimePrekeyID: UInt32? = nil,
                          acceptedEphemeralKey: AcceptedEphemeralKey? = nil, identity: RemoteIdentityClaim? = nil) -> ReceiveWrite {
        ReceiveWrite(action: .decrypted(DecryptionCommit(message: row, consumedOneTimePrekeyID: consumedOneTimePrekeyID,
                                                         acceptedEphemeralKey: acceptedEphemeralKey, identity: identity,
                                                         processedAt: row.createdAt)),
                     facts: ReceivedFacts(kind: kind, payloadID: payloadID, editedAt: editedAt), session: session, senderKey: senderKey)
    }

    /// A message waiting for `waitingFor`, its ciphertext `content` queued.
    static func pending(_ row: TimelineMessage, content: String = "envelope", waitingFor: String = "k", receivedAt: StoreTime = Fixtures.time(1),
                        kind: TimelineRowKind = .message) -> ReceiveWrite {
        ReceiveWrite(action: .pending(row, content: content, waitingFor: waitingFor, receivedAt: receivedAt), facts: ReceivedFacts(kind: kind))
    }

    /// A final outcome without key effects (undecryptable, unencrypted).
    static func outcome(_ row: TimelineMessage) -> ReceiveWrite {
        ReceiveWrite(action: .outcome(row), facts: ReceivedFacts(kind: .message))
    }

    /// A decrypted tombstone `id` of `user` (device `device-b`) in `channel`, naming the payload
    /// id of the message it deletes.
    static func tombstone(_ id: String, deleting payloadID: String, channel: String = "channel-1", user: String = "user-b",
                          at micros: Int64) -> ReceiveWrite {
        var row = Fixtures.message(id, channel: channel, at: micros)
        row.senderUserID = user
        var write = decrypted(row, kind: .control, payloadID: "payload-\(id)")
        write.facts.deleteOf = payloadID
        return write
    }
}
