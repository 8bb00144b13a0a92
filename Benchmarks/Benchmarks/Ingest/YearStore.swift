import E2EECrypto
@_spi(StoreInternals) import E2EEKeyStore
import Foundation

/// A store a year of use has filled (issue 47), built once through the store's own receive
/// write and kept on disk (`INGEST_YEAR_CACHE`, default `/tmp/e2ee-year-store`; `year-store.sh`
/// points it at `Benchmarks/.cache`), reused by every sample and every run: each sample copies
/// it and installs the receiver's keys into the copy.
///
/// It holds 1,000,000 timeline rows in 1,000 channels other than the workload's: 10 large
/// channels of 50,000 rows (so a page 10,000 rows back exists) and 990 of ~505; one channel in
/// five a DM (its rows from one device, a pairwise session each), the others groups of five
/// sending devices (a receiving sender key each: 4,000); 600 remote devices, each with a current
/// and an older session (1,200 session rows); 1,000 rows pending (one in a thousand: the newest 10 of
/// 100 small group channels, waiting for a sender key not received). Rows are decrypted group or DM
/// messages with 60–200 bytes of text and a payload id, spread over the year before the build.
///
/// The store is sealed under a fixed benchmark key (``key()``): the rows are made-up text, not
/// secrets, and the cache must open in every later run.
enum YearStore {
    static let channels = 1_000
    static let largeChannels = 10
    static let largeChannelRows = 50_000
    static let rows = 1_000_000
    static let pendingChannels = 100
    static let pendingPerChannel = 10
    static let remoteDevices = 600
    static let batchSize = 1_000
    /// A year, over which each channel's rows are spread evenly, the newest at the build's time.
    static let year: Int64 = 365 * 86_400 * 1_000_000
    /// Bumped when the content changes, so an old cache is not reused.
    static let version = 1

    /// The fixed key the cache is sealed under.
    static func key() throws -> StoreKey {
        try StoreKey(SecretBytes(copying: [UInt8](repeating: 0x47, count: StoreKey.length)))
    }

    /// The cache's directory.
    static var directory: URL {
        URL(fileURLWithPath: ProcessInfo.processInfo.environment["INGEST_YEAR_CACHE"] ?? "/tmp/e2ee-year-store", isDirectory: true)
    }

    static var file: URL { directory.appendingPathComponent("year-store-v\(version).sqlite") }
    private static var marker: URL { directory.appendingPathComponent("year-store-v\(version).complete") }

    /// The channels whose newest rows wait for a key: the first 100 small group channels.
    static let pendingSet = Set((largeChannels..<channels).filter { !isDM($0) }.prefix(pendingChannels))

    /// The channel of filler channel `index`.
    static func channelID(_ index: Int) -> String { String(format: "00000000-0000-4000-8000-%012x", 0xC0_0000 + index) }
    /// Whether filler channel `index` is a DM.
    static func isDM(_ index: Int) -> Bool { index % 5 == 0 }
    /// Rows of channel `index`.
    static func rowCount(_ index: Int) -> Int {
        if index < largeChannels { return largeChannelRows }
        let small = channels - largeChannels
        let rest = rows - largeChannels * largeChannelRows
        return rest / small + ((index - largeChannels) < rest % small ? 1 : 0)
    }
    /// The id of row `row` of channel `index`.
    static func messageID(channel index: Int, row: Int) -> String {
        String(format: "%08x-%04x-4000-8000-%012x", index, row >> 16, row & 0xFFFF)
    }
    /// The time of row `row` of channel `index` in a store built at `end`.
    static func createdAt(channel index: Int, row: Int, end: Int64) -> StoreTime {
        let count = Int64(rowCount(index))
        return StoreTime(microseconds: end - (count - 1 - Int64(row)) * (year / count))
    }
    /// The sending device of row `row` in channel `index` (a DM: one device).
    static func device(channel index: Int, row: Int) -> Int {
        isDM(index) ? (index * 5) % remoteDevices : (index * 5 + row % 5) % remoteDevices
    }
    static func deviceID(_ device: Int) -> String { String(format: "00000000-0000-4000-9000-%012x", device) }
    static func userID(_ device: Int) -> String { String(format: "00000000-0000-4000-a000-%012x", device / 2) }

    /// The cached store and the time it was built at (its newest rows' time), built when missing (about a minute or two: 1,000,000 rows through
    /// `storeReceiveBatch`), then opened once so that its migrations are applied to the cache
    /// itself (every copy then opens without migrating).
    /// - Throws: the store's errors.
    static func cached(log: (String) -> Void) async throws -> Cache {
        let fileManager = FileManager.default
        if !fileManager.fileExists(atPath: marker.path) {
            try? fileManager.removeItem(at: directory)
            try fileManager.createDirectory(at: directory, withIntermediateDirectories: true)
            let clock = ContinuousClock()
            let start = clock.now
            let end = StoreTime.now().microseconds
            try await build(end: end)
            try Data(String(end).utf8).write(to: marker)
            log("year store built in \(seconds(clock.now - start)) s: \(sizeOnDisk(file) / 1_000_000) MB at \(file.path)")
        }
        guard let end = Int64(String(decoding: try Data(contentsOf: marker), as: UTF8.self)) else {
            throw SetupFailed("the year store's marker holds no time; delete \(directory.path)")
        }
        let store = try KeyStore.open(at: file, key: try key())
        try await store.checkpoint()
        try store.close()
        return Cache(file: file, end: end)
    }

    /// The cached file and its build time.
    struct Cache: Sendable {
        let file: URL
        let end: Int64
    }

    /// The bytes of a store file with its WAL and shared memory.
    static func sizeOnDisk(_ url: URL) -> Int {
        [url.path, url.path + "-wal", url.path + "-shm"].reduce(0) { total, path in
            total + ((try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0)
        }
    }

    private static func build(end: Int64) async throws {
        let store = try KeyStore.open(at: file, key: try key())
        var random = SplitMix64(seed: 0x4_7000_0001)
        var sessionsWritten = Set<Int>()
        var writes: [ReceiveWrite] = []
        writes.reserveCapacity(batchSize)
        let text = Array("A year of messages, stored as the receive path stores them; lorem ipsum dolor sit amet, consectetur adipiscing elit sed do eiusmod tempor incididunt ut labore et dolore magna aliqua.".utf8)
        for index in 0..<channels {
            let channel = channelID(index)
            let count = rowCount(index)
            let pendingFrom = pendingSet.contains(index) ? count - pendingPerChannel : count
            for row in 0..<count {
                let device = device(channel: index, row: row)
                let id = messageID(channel: index, row: row)
                let length = 60 + Int(random.next() % 141)
                let content = "year \(index) \(row) \(random.next())"
                var message = TimelineMessage(
                    messageID: id, channelID: channel, senderUserID: userID(device), senderDeviceID: deviceID(device),
                    createdAt: createdAt(channel: index, row: row, end: end), contentHash: SHA256.hash(Array(content.utf8)), state: .decrypted,
                    plaintext: SecretBytes(copying: Array(text.prefix(length))))
                if row >= pendingFrom {
                    message.state = .pendingKey
                    message.plaintext = nil
                    let waiting = "sender_key:\(channel)/\(deviceID(device))/2"
                    writes.append(ReceiveWrite(action: .pending(message, content: String(repeating: "A", count: 300), waitingFor: waiting,
                                                                receivedAt: message.createdAt),
                                               facts: ReceivedFacts(kind: .message)))
                } else {
                    var write = ReceiveWrite(action: .decrypted(DecryptionCommit(message: message, processedAt: message.createdAt)),
                                             facts: ReceivedFacts(kind: .message, payloadID: "p-\(id)"))
                    if isDM(index) || !sessionsWritten.contains(device) {
                        if sessionsWritten.insert(device).inserted || isDM(index) && row % 100 == 0 {
                            write.session = SessionUpdate(userID: userID(device), deviceID: deviceID(device), states: [
                                .init(sessionID: "session-\(device)-b", state: SecretBytes.random(count: 400), isCurrent: true),
                                .init(sessionID: "session-\(device)-a", state: SecretBytes.random(count: 400), isCurrent: false),
                            ])
                        }
                    }
                    if !isDM(index), row % 100 < 5 {
                        write.senderKey = ReceiverSenderKey(
                            address: SenderKeyAddress(channelID: channel, senderDeviceID: deviceID(device), keyID: 1), senderUserID: userID(device),
                            state: SecretBytes.random(count: 100), createdAt: createdAt(channel: index, row: 0, end: end), updatedAt: message.createdAt)
                    }
                    writes.append(write)
                }
                if writes.count == batchSize {
                    _ = try await store.storeReceiveBatch(writes)
                    writes.removeAll(keepingCapacity: true)
                }
            }
        }
        if !writes.isEmpty { _ = try await store.storeReceiveBatch(writes) }
        try await store.checkpoint()
        try store.close()
    }
}
