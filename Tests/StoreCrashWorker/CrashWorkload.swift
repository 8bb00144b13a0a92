import E2EECrypto
@_spi(StoreInternals) import E2EEKeyStore
import Foundation

/// The operations the crash test kills in the middle of, and the fixed values they write, so
/// the test can check from the database alone that each commit is complete.
///
/// Step `k` (from 1): a pending message `in-k` arrives; it is decrypted, as a key
/// distribution's receive write stores it (receiver state `iter:k`, the peer's session
/// `session:k`, plaintext `message k`, pending row removed); an outgoing message `out j` is
/// queued (own sender state `sent:j`, outbox row `j`); every second outgoing message is marked
/// sent (timeline row `own-j`). Each of those is one transaction; both receive steps go through
/// ``KeyStore/storeReceiveBatch(_:)``, the store's one receive write.
enum CrashWorkload {
    /// The channel every row uses.
    static let channelID = "crash-channel"
    /// The receiving sender-key address.
    static let address = SenderKeyAddress(channelID: channelID, senderDeviceID: "peer-device", keyID: 7)
    /// The own sender key id.
    static let ownKeyID: UInt32 = 3
    /// The peer and its session row.
    static let peerUserID = "peer", peerSessionID = "peer-session"

    /// Bytes of a short text as a secret.
    static func secret(_ text: String) -> SecretBytes { SecretBytes(copying: Array(text.utf8)) }

    /// The text a secret holds.
    static func text(_ secret: SecretBytes) -> String { String(decoding: secret.unprotectedCopy(), as: UTF8.self) }

    /// The number after `prefix:` in a state, or nil.
    static func number(_ secret: SecretBytes, prefix: String) -> Int? {
        let value = text(secret)
        guard value.hasPrefix(prefix + ":") else { return nil }
        return Int(value.dropFirst(prefix.count + 1))
    }

    /// A 32-byte content hash for message `id`.
    static func hash(_ id: String) -> [UInt8] { SHA256.hash(Array(id.utf8)) }

    /// The peer's session, as the store writes it after message `k` (0: the starting state).
    static func session(_ k: Int) -> SessionUpdate {
        SessionUpdate(userID: peerUserID, deviceID: address.senderDeviceID,
                           states: [SessionUpdate.State(sessionID: peerSessionID, state: secret("session:\(k)"), isCurrent: true)])
    }

    /// Creates the starting state once (receiver state at iteration 0, the peer's session at 0,
    /// own sender key at 0 messages).
    static func setUp(_ store: KeyStore) async throws {
        try await store.write { db in
            let receivers = ReceiverSenderKeyStore(sealer: store.sealer)
            guard try receivers.loadReceiverSenderKey(address, db) == nil else { return }
            let t0 = StoreTime(microseconds: 0)
            try receivers.storeReceiverSenderKey(
                ReceiverSenderKey(address: address, senderUserID: peerUserID, state: secret("iter:0"), createdAt: t0, updatedAt: t0), db)
            try SessionStore(sealer: store.sealer).installSession(userID: peerUserID, deviceID: address.senderDeviceID, state: secret("session:0"),
                                                                  id: peerSessionID, at: t0, db)
            try OwnSenderKeyStore(sealer: store.sealer).storeNewSenderKey(
                OwnSenderKey(channelID: channelID, keyID: ownKeyID, state: secret("sent:0"), isCurrent: true, messagesSent: 0, createdAt: t0), db)
        }
    }

    /// Runs steps forever (until killed), calling `committed` after each commit.
    static func run(_ store: KeyStore, committed: (String) -> Void) async throws {
        while true {
            let (iteration, sent) = try await store.read { db in
                let receiver = try ReceiverSenderKeyStore(sealer: store.sealer).loadReceiverSenderKey(address, db)
                let own = try OwnSenderKeyStore(sealer: store.sealer).loadCurrentSenderKey(channelID: channelID, db)
                return (receiver.flatMap { number($0.state, prefix: "iter") } ?? 0, own.flatMap { number($0.state, prefix: "sent") } ?? 0)
            }
            let k = iteration + 1
            let time = StoreTime(microseconds: Int64(k) * 1000)
            let message = TimelineMessage(messageID: "in-\(k)", channelID: channelID, senderUserID: peerUserID, senderDeviceID: address.senderDeviceID,
                                          createdAt: time, contentHash: hash("in-\(k)"), state: .pendingKey, plaintext: nil)
            _ = try await store.storeReceiveBatch([
                ReceiveWrite(action: .pending(message, content: "envelope \(k)", waitingFor: "sender_key:\(address)", receivedAt: time),
                             facts: ReceivedFacts(kind: .message)),
            ])
            committed("P \(k)")
            var decrypted = message
            decrypted.state = .decrypted
            decrypted.plaintext = secret("message \(k)")
            let state = ReceiverSenderKey(address: address, senderUserID: peerUserID, state: secret("iter:\(k)"), createdAt: StoreTime(microseconds: 0),
                                          updatedAt: time)
            _ = try await store.storeReceiveBatch([
                ReceiveWrite(action: .decrypted(DecryptionCommit(message: decrypted, processedAt: time)),
                             facts: ReceivedFacts(kind: .message, payloadID: "payload-\(k)"), session: session(k), senderKey: state),
            ])
            committed("D \(k)")
            let j = sent + 1
            try await store.queueOutgoingMessage(OutgoingCommit(
                localID: "local-\(j)", channelID: channelID, content: "content \(j)", plaintext: secret("out \(j)"),
                senderKey: OwnSenderKeyAdvance(keyID: ownKeyID, state: secret("sent:\(j)")), queuedAt: time))
            committed("O \(j)")
            if j % 2 == 0 {
                try await store.markSending(localID: "local-\(j)", at: time)
                try await store.markSent(localID: "local-\(j)", serverMessageID: "own-\(j)", createdAt: time, senderUserID: "me", senderDeviceID: "my-device")
                committed("S \(j)")
            }
        }
    }
}
