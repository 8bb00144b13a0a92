import E2EECrypto
import Foundation

/// One change of the receive pipeline, stored with others of its lane by
/// ``KeyStore/storeReceiveBatch(_:)`` in one transaction.
@_spi(StoreInternals) public struct ReceiveWrite: Sendable {
    /// What happens to the message's timeline row.
    public enum Action: Sendable {
        /// A decryption: the row (normally `.decrypted` with the payload JSON as plaintext) with
        /// its prekey, ephemeral-key and identity effects (the states it advanced are
        /// ``ReceiveWrite/session`` and ``ReceiveWrite/senderKey``).
        case decrypted(DecryptionCommit)
        /// The message waits for a key: a `.pendingKey` row and its queued ciphertext (an
        /// existing pending row is updated; any other existing row is left as it is).
        case pending(TimelineMessage, content: String, waitingFor: String, receivedAt: StoreTime)
        /// A final outcome without key effects (undecryptable, unencrypted, a duplicate); a row
        /// already decrypted, unencrypted or deleted is never downgraded.
        case outcome(TimelineMessage)
        /// An edit or delete that was refused: recorded, the message stays as it was.
        case refused(RefusedInput)
    }

    /// What happens to the row.
    public var action: Action
    /// The receive-side columns of the row (unused for ``Action/refused(_:)``).
    public var facts: ReceivedFacts
    /// The sending device's sessions after the decryption (within a batch only the last
    /// write of each device is stored).
    public var session: SessionUpdate?
    /// A receiving sender-key state to store (installed by an SKD, or advanced by a group
    /// message). Within a batch only the last state of each address is written.
    public var senderKey: ReceiverSenderKey?
    /// A changed identity to record (the pin is kept; recorded once per distinct new blob).
    public var identityChange: RemoteIdentityClaim?
    /// A DM's two participants this decryption fixes (our own other device naming the other
    /// participant, docs/spec/protocol.md §5.10): applied with the row, only while none are
    /// fixed and the channel is not pinned as a group, and then the DM is accepted here.
    public var fixesParticipants: Set<String>?
    /// A ratchet restart a refusal asks for (a message refused as too far ahead,
    /// docs/spec/protocol.md §3.17): recorded with the refusal, when the refusal is stored.
    public var sessionRestart: SessionRestartRequest?
    /// The row's sealed plaintext and payload key, made before the transaction
    /// (``KeyStore/sealAhead(_:)``); nil: the transaction makes them.
    package var ahead: RowAhead?

    /// Creates the value.
    public init(action: Action, facts: ReceivedFacts, session: SessionUpdate? = nil, senderKey: ReceiverSenderKey? = nil,
                identityChange: RemoteIdentityClaim? = nil, sessionRestart: SessionRestartRequest? = nil) {
        self.action = action
        self.facts = facts
        self.session = session
        self.senderKey = senderKey
        self.identityChange = identityChange
        self.sessionRestart = sessionRestart
    }
}

extension ReceiveWrite {
    /// The timeline row the write stores, if it stores one.
    var row: TimelineMessage? {
        switch action {
        case .decrypted(let commit): commit.message
        case .pending(let row, _, _, _), .outcome(let row): row
        case .refused: nil
        }
    }
}

/// What a write's row needs that depends on nothing stored — its plaintext sealed for the
/// `plaintext` column and its payload key — with what it was made from. Made before the
/// transaction (``KeyStore/sealAhead(_:)``), it is used only while the row still fits it (a row
/// stored as a duplicate or erased drops its plaintext, and a duplicate its payload id); the
/// transaction makes one for any row it does not fit.
package struct RowAhead: Sendable {
    /// The row the plaintext was sealed for (the sealing's associated data names it).
    let messageID: String
    /// Whether the row had a plaintext.
    let hadPlaintext: Bool
    /// The plaintext, sealed for the row's `plaintext` column.
    let sealedPlaintext: Data?
    /// The (sender user, payload id) the payload key was made from.
    let senderUserID: String?
    let payloadID: String?
    /// ``StoreSchema/payloadKey(senderUserID:payloadID:)`` of that pair.
    let payloadKey: Data?

    /// Seals `row`'s plaintext with `sealer` and makes its payload key from `row` and `facts`.
    /// - Throws: the sealer's errors.
    init(_ row: TimelineMessage, _ facts: ReceivedFacts, sealer: Sealer) throws {
        messageID = row.messageID
        hadPlaintext = row.plaintext != nil
        sealedPlaintext = try sealer.sealIfPresent(row.plaintext, table: TimelineStore.table, column: "plaintext", rowID: row.messageID)
        senderUserID = row.senderUserID
        payloadID = facts.payloadID
        payloadKey = StoreSchema.payloadKey(senderUserID: row.senderUserID, payloadID: facts.payloadID)
    }

    /// Whether this was made from what `row` and `facts` hold now.
    func fits(_ row: TimelineMessage, _ facts: ReceivedFacts) -> Bool {
        messageID == row.messageID && hadPlaintext == (row.plaintext != nil) && senderUserID == row.senderUserID
            && payloadID == facts.payloadID
    }
}

/// What ``KeyStore/storeReceiveBatch(_:)`` did with one write.
@_spi(StoreInternals) public enum ReceiveWriteResult: Sendable, Equatable {
    /// Stored as given.
    case stored
    /// The decrypted message reused a (sender user, payload id): stored as a duplicate of
    /// this first message id, without plaintext (its key effects are stored).
    case duplicateOfPayload(String)
    /// The row already held a final state (decrypted, unencrypted, deleted): left unchanged.
    case unchanged
    /// Like ``stored``, and the identity change was recorded for the first time.
    case storedWithNewIdentityChange
    /// A trusted tombstone was stored and erased this message (server id) of its sender.
    case storedErasing(String)
    /// A tombstone from a device not trusted here was stored; the message (server id) it names
    /// is only marked removed from the server.
    case storedMarkingRemoved(String)
    /// A message was stored erased: a trusted tombstone for it was already here.
    case storedErased
    /// An announcement from a trusted device of this account was stored and applied as this
    /// device's own decision; `devices` are the ids it names that are devices here (the rest
    /// are users).
    case storedApplyingAnnouncement(devices: Set<String>)
    /// An announcement from a trusted device of another user was stored: the app is prompted;
    /// `devices` as for ``storedApplyingAnnouncement(devices:)``.
    case storedAnnouncementFromOther(devices: Set<String>)
    /// Like ``stored``, and this write pinned the sender device's identity: nothing had pinned
    /// it before (docs/spec/protocol.md §7.1), and another device of its user was pinned earlier
    /// (the devices of a user met for the first time are no news). Only the write that pins a device reports it, so
    /// a device is announced once however many paths meet it.
    case storedWithNewPin
}
