import E2EECrypto
@_spi(StoreInternals) import E2EEKeyStore
import Foundation

/// The harness's workload (docs/key-store.md, Benchmarks): random UUID server ids, ~100-byte
/// plaintexts, 100-byte receiver sender-key states, 10 sending devices over 3 channels.
enum Workload {
    static let senders = 10
    static let batchSize = 1_000
    static let messageCount = 100_000
    static let firstTime: Int64 = 1_700_000_000_000_000
    static let text = Array(String(repeating: "lorem ipsum ", count: 8).utf8)
    static let addresses = (0..<senders).map {
        SenderKeyAddress(channelID: "channel-\($0 % 3)", senderDeviceID: "device-\($0)", keyID: 1)
    }

    /// The creation time of message `index` (1 ms apart).
    static func time(_ index: Int) -> StoreTime {
        StoreTime(microseconds: firstTime + Int64(index) * 1_000)
    }

    /// The receive write of message `index` (a group message decrypted): its timeline row and
    /// its sender's advanced state, as the receive pipeline hands it to the store.
    static func write(_ index: Int) -> ReceiveWrite {
        let address = addresses[index % senders]
        let message = TimelineMessage(
            messageID: UUID().uuidString.lowercased(), channelID: address.channelID, senderUserID: "user", senderDeviceID: address.senderDeviceID,
            createdAt: time(index), contentHash: SHA256.hash(Array("content \(index)".utf8)), state: .decrypted,
            plaintext: SecretBytes(copying: text + Array(" \(index)".utf8))
        )
        let state = ReceiverSenderKey(address: address, senderUserID: "user", state: SecretBytes.random(count: 100),
                                      createdAt: time(0), updatedAt: message.createdAt)
        return ReceiveWrite(action: .decrypted(DecryptionCommit(message: message, processedAt: message.createdAt)),
                            facts: ReceivedFacts(kind: .message), senderKey: state)
    }

    /// The writes of messages `index ..< index + batchSize`.
    static func batch(startingAt index: Int) -> [ReceiveWrite] {
        (index..<index + batchSize).map(write)
    }
}

/// A store on a file in its own temporary directory, removed by ``remove()``.
final class TemporaryStore {
    let directory: URL
    let url: URL
    let key = StoreKey.random()
    var store: KeyStore?
    /// Messages stored so far.
    var count = 0

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("e2ee-keystore-bench-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        url = directory.appendingPathComponent("bench.sqlite")
    }

    /// The open store (opened on first use).
    func opened() throws -> KeyStore {
        if let store { return store }
        let opened = try KeyStore.open(at: url, key: key)
        store = opened
        return opened
    }

    /// Stores batches until `total` messages are in, then checkpoints.
    func fill(to total: Int) async throws {
        let store = try opened()
        while count < total {
            _ = try await store.storeReceiveBatch(Workload.batch(startingAt: count))
            count += Workload.batchSize
        }
        try await store.checkpoint()
    }

    /// Closes the store.
    func close() throws {
        try store?.close()
        store = nil
    }

    /// Closes the store and deletes its directory.
    func remove() {
        try? close()
        try? FileManager.default.removeItem(at: directory)
    }
}
