import E2EECrypto
@_spi(StoreInternals) import E2EEKeyStore
import Foundation

// Fills a tool's store with a history to transfer (issue 46's soak test and
// Benchmarks/transfer.sh): `count` decrypted messages of the account's own user, sent from its
// device, in one channel, stored through the store's own receive write (`storeReceiveBatch`,
// 1,000 a transaction) as the receive pipeline stores them, one millisecond apart and ending a
// minute ago (inside every history window). Run it before any tool process opens the store.
//
//   HistorySeeder <store> <count> <channel-id> <user-id> <device-id>
//
// The store's passphrase is read from E2EE_STORE_PASSPHRASE. Prints the count stored.

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data((message + "\n").utf8))
    exit(2)
}

let arguments = CommandLine.arguments
guard arguments.count == 6, let count = Int(arguments[2]), count > 0 else {
    fail("usage: HistorySeeder <store> <count> <channel-id> <user-id> <device-id>  (passphrase in E2EE_STORE_PASSPHRASE)")
}
guard let passphrase = ProcessInfo.processInfo.environment["E2EE_STORE_PASSPHRASE"] else { fail("E2EE_STORE_PASSPHRASE is not set") }
let (channel, user, device) = (arguments[3].lowercased(), arguments[4].lowercased(), arguments[5].lowercased())

do {
    let store = try KeyStore.open(at: URL(fileURLWithPath: arguments[1]), passphrase: SecretBytes(copying: Array(passphrase.utf8)))
    let end = StoreTime.now().microseconds - 60_000_000
    var index = 0
    while index < count {
        var writes: [ReceiveWrite] = []
        for n in index..<min(index + 1_000, count) {
            let messageID = UUID().uuidString.lowercased(), payloadID = UUID().uuidString.lowercased()
            let createdAt = StoreTime(microseconds: end - Int64(count - n) * 1_000)
            let payload = try MessagePayload(id: WireUUID(text: payloadID), timestamp: createdAt.microseconds / 1_000,
                                             text: HistorySeed.text(n)).encodedJSON()
            let row = TimelineMessage(messageID: messageID, channelID: channel, senderUserID: user, senderDeviceID: device, createdAt: createdAt,
                                      contentHash: SHA256.hash(Array(messageID.utf8)), state: .decrypted, plaintext: payload, isOwn: true)
            writes.append(ReceiveWrite(action: .decrypted(DecryptionCommit(message: row, processedAt: createdAt)),
                                       facts: ReceivedFacts(kind: .message, payloadID: payloadID)))
        }
        _ = try await store.storeReceiveBatch(writes)
        index += writes.count
    }
    try store.close()
    print(count)
} catch {
    fail("seeding failed: \(error)")
}

/// The seeded texts: about 100 bytes each, numbered from 0, so a reader can tell each one.
enum HistorySeed {
    static func text(_ n: Int) -> String {
        "history message \(n): " + String(repeating: "x", count: 80)
    }
}
