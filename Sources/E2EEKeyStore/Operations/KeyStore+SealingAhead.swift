import E2EECrypto
import Foundation

/// The columns a receive commit derives from a row, computed before the transaction.
extension KeyStore {
    /// `writes` with each decrypted row's sealed plaintext and payload key computed now, on the
    /// caller's thread, so that ``storeReceiveBatch(_:)`` only stores them: every batch's
    /// commit runs on the one writer connection, which on a device with several cores is the
    /// receive path's critical path, while the lanes that call this run side by side. A row
    /// whose sealing fails here is left to the commit, which seals it (and reports the error).
    package func sealingAhead(_ writes: [ReceiveWrite]) -> [ReceiveWrite] {
        writes.map { write in
            guard case .decrypted(let commit) = write.action else { return write }
            var sealed = write
            let message = commit.message
            sealed.ahead = SealedAhead(
                plaintext: message.plaintext,
                sealedPlaintext: try? sealer.sealIfPresent(message.plaintext, table: TimelineStore.table, column: "plaintext",
                                                           rowID: message.messageID),
                senderUserID: message.senderUserID, payloadID: write.facts.payloadID,
                payloadKey: StoreSchema.payloadKey(senderUserID: message.senderUserID, payloadID: write.facts.payloadID))
            return sealed
        }
    }
}

/// A row's derived columns as ``KeyStore/sealingAhead(_:)`` computed them, with what they were
/// computed from: the commit uses them only while the row it stores still has those inputs
/// (it may drop a plaintext or a payload id, as for a duplicate or an erased message).
package struct SealedAhead: Sendable {
    /// The plaintext sealed (compared in constant time with the row's before use).
    let plaintext: SecretBytes?
    /// `plaintext` sealed for the row's `plaintext` column (nil when there is none, or when
    /// sealing failed and is left to the commit).
    let sealedPlaintext: Data?
    /// The sender user and payload id the key was computed from.
    let senderUserID: String?
    let payloadID: String?
    /// ``StoreSchema/payloadKey(senderUserID:payloadID:)`` of the two.
    let payloadKey: Data?

    /// The sealed `plaintext` column for `message` when this was made from its plaintext.
    func sealedPlaintext(for message: TimelineMessage) -> Data? {
        guard let current = message.plaintext, let plaintext, let sealedPlaintext, current == plaintext else { return nil }
        return sealedPlaintext
    }

    /// The payload key for `message` with `facts` when this was made from the same pair (itself
    /// nil when the pair has no key); nil when it was made from another pair.
    func payloadKey(for message: TimelineMessage, _ facts: ReceivedFacts) -> Data?? {
        guard senderUserID == message.senderUserID, payloadID == facts.payloadID else { return .none }
        return .some(payloadKey)
    }
}
