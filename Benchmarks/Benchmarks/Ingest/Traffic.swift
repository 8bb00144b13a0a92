import E2EECrypto
@_spi(Benchmarks) import E2EEMessaging
import Foundation

/// The posted messages of the workload, made once with real encryption: 10 sender devices
/// writing to the receiving device in two groups (8 devices with sender keys) and two DMs (one
/// device each, pairwise sessions), until 80,000 rows exist — group messages, the SKDs every new
/// sender key needs (before the first message and after every 100), and DMs — in the
/// server's `(created_at, id)` order, each as the server's row (decoded from its JSON form).
struct Traffic {
    /// How many rows the server holds at the end.
    static let uniqueCount = 80_000
    /// Texts kept per channel for the check after a sample (its newest page).
    static let checkedPerChannel = 100

    /// The four channels (0, 1 groups; 2, 3 DMs).
    let channels: [ReceivingChannel]
    /// Every row, oldest first, with the index of its channel; empty once the input is built
    /// (``withoutRows()``: the samples are fed the rows' bytes).
    private(set) var rows: [(channel: Int, message: ServerMessage)]
    /// The bundles the server lists per user (`GET /keys/{user_id}/bundles`), one per sending
    /// device: what the receiving account's directory reads for the first prekey message of
    /// each device.
    let bundles: [String: [DeviceBundle]]
    /// Per channel, the users who write in it (the receiver's own user aside): a group's members
    /// as the server lists them, a DM's other participant.
    let members: [[String]]
    /// The text of the newest chat messages of each channel, by server id (to check the
    /// stored plaintexts of the newest page).
    let texts: [String: String]
    /// How many rows are SKDs (control rows, no text).
    let distributionCount: Int
    /// Per channel, how many of its rows are chat messages (not SKDs): what its timeline holds
    /// after a sample.
    let chatMessages: [Int]
    /// How many rows are group messages, and how many DMs.
    let groupCount: Int
    let directCount: Int

    /// The same traffic without its rows (their memory handed back once the bytes and the
    /// floor's input are made from them).
    func withoutRows() -> Traffic {
        var copy = self
        copy.rows = []
        return copy
    }

    /// Builds the traffic for `receiver` (uses one one-time prekey per sender device).
    static func make(receiver: ReceiverKeys, random: inout SplitMix64) throws -> Traffic {
        let channelIDs = (0..<4).map { _ in UUID().uuidString.lowercased() }
        let channels = channelIDs.enumerated().map { index, id in
            ReceivingChannel(id: ChannelID(id), encryption: index < 2 ? .senderKeys : .x3dh)
        }
        let users = (0..<8).map { _ in UUID().uuidString.lowercased() }
        // Group 0: user 0 with two devices, users 1 and 2; group 1: users 3 and 4, user 5 with
        // two devices. DMs: user 6 in channel 2, user 7 in channel 3.
        let plan: [(user: Int, channel: Int)] = [(0, 0), (0, 0), (1, 0), (2, 0), (3, 1), (4, 1), (5, 1), (5, 1), (6, 2), (7, 3)]
        var senders: [(device: SenderDevice, channel: Int)] = []
        for (index, entry) in plan.enumerated() {
            senders.append((try SenderDevice(userID: users[entry.user], bundle: receiver.bundle(oneTimePrekey: index)), entry.channel))
        }
        var bundles: [String: [DeviceBundle]] = [:]
        for sender in senders { bundles[sender.device.userID, default: []].append(try sender.device.serverBundle()) }
        let members = channels.indices.map { channel in
            Array(Set(plan.filter { $0.channel == channel }.map { users[$0.user] })).sorted()
        }

        let wireUUIDs = try channelIDs.map { try WireUUID(text: $0) }
        var wire: [WireMessage] = []
        wire.reserveCapacity(uniqueCount)
        var channelOfRow: [Int] = []
        var texts: [String: String] = [:]
        var distributions = 0
        var time: Int64 = 1_800_000_000_000_000
        func post(_ content: String, kind: EnvelopeKind, by sender: SenderDevice, in channel: Int) -> String {
            // Mostly a few milliseconds apart; now and then the same microsecond (one server
            // transaction start shared by two rows: ties are ordered by id).
            time += random.next(upTo: 100) < 3 ? 0 : 1 + Int64(random.next(upTo: 5_000))
            let row = WireMessage(id: UUID().uuidString.lowercased(), channelID: channelIDs[channel], senderID: sender.userID,
                                  senderDeviceID: sender.deviceID, content: content, contentType: kind.contentType, protocolVersion: 2,
                                  createdAt: ServerTimestamp(microseconds: time))
            wire.append(row)
            channelOfRow.append(channel)
            return row.id
        }
        while wire.count < uniqueCount {
            let (sender, channel) = senders[Int(random.next(upTo: UInt64(senders.count)))]
            let text = Self.text(number: wire.count, random: &random)
            let timestamp = time / 1_000
            if channels[channel].encryption == .x3dh {
                let id = post(try sender.directMessage(text, channel: wireUUIDs[channel], timestamp: timestamp), kind: .dm, by: sender, in: channel)
                texts[id] = text
                continue
            }
            if let distribution = try sender.distributionIfNeeded(channel: wireUUIDs[channel]) {
                _ = post(distribution, kind: .senderKeyDistribution, by: sender, in: channel)
                distributions += 1
                if wire.count == uniqueCount { break }
            }
            let id = post(try sender.groupMessage(text, timestamp: timestamp), kind: .group, by: sender, in: channel)
            texts[id] = text
        }
        let decoded = try JSONDecoder().decode([ServerMessage].self, from: JSONEncoder().encode(wire))
        let rows = zip(channelOfRow, decoded).map { (channel: $0, message: $1) }
            .sorted { ServerMessage.timelineOrder($0.message, $1.message) }
        var newest: [String: String] = [:]
        for channel in channels.indices {
            for row in rows.lazy.filter({ $0.channel == channel }).suffix(checkedPerChannel) {
                newest[row.message.id.rawValue] = texts[row.message.id.rawValue]
            }
        }
        var chatMessages = Array(repeating: 0, count: channels.count)
        for row in rows where row.message.contentType != EnvelopeKind.senderKeyDistribution.contentType { chatMessages[row.channel] += 1 }
        return Traffic(channels: channels, rows: rows, bundles: bundles, members: members, texts: newest, distributionCount: distributions, chatMessages: chatMessages,
                       groupCount: rows.count(where: { $0.message.contentType == EnvelopeKind.group.contentType }),
                       directCount: rows.count(where: { $0.message.contentType == EnvelopeKind.dm.contentType }))
    }

    /// A chat message of 20–200 characters.
    private static func text(number: Int, random: inout SplitMix64) -> String {
        let words = ["hello", "are", "we", "still", "meeting", "tomorrow", "at", "the", "station", "bring", "the", "slides",
                     "and", "coffee", "please", "thanks", "see", "you", "there", "soon"]
        var text = "#\(number)"
        let length = 20 + Int(random.next(upTo: 181))
        while text.count < length { text += " " + words[Int(random.next(upTo: UInt64(words.count)))] }
        return String(text.prefix(length))
    }
}

/// A message row as the server writes it in JSON (REST pages and `message.new` payloads).
private struct WireMessage: Encodable {
    let id: String
    let channelID: String
    let senderID: String
    let senderDeviceID: String
    let content: String
    let contentType: String
    let protocolVersion: Int
    let createdAt: ServerTimestamp

    enum CodingKeys: String, CodingKey {
        case id, channelID = "channel_id", senderID = "sender_id", senderDeviceID = "sender_device_id", content
        case contentType = "content_type", protocolVersion = "protocol_version", createdAt = "created_at"
    }
}

/// A small seeded generator (SplitMix64), so the delivery order is the same in every run.
struct SplitMix64: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A number in `0..<bound` (bound > 0).
    mutating func next(upTo bound: UInt64) -> UInt64 { next() % bound }
}
