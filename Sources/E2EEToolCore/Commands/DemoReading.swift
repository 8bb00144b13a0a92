import E2EEMessaging

/// The demo's receiving half: every device catches up (``Account/sync()``) and reads each
/// channel's timeline from its own store; then the readings are compared with each other and
/// with what was sent.
enum DemoReading {
    /// One message as a device read it.
    struct Message: Encodable, Equatable {
        let messageID: String
        let sender: String
        let state: String
        let text: String?
        enum CodingKeys: String, CodingKey { case messageID = "message_id", sender, state, text }
    }

    /// One channel as a device read it.
    struct ChannelView: Encodable, Equatable {
        let channelID: String
        let kind: String
        let messages: [Message]
        enum CodingKeys: String, CodingKey { case channelID = "channel_id", kind, messages }
    }

    /// What one device read.
    struct DeviceView: Encodable, Equatable {
        let device: String
        let channels: [ChannelView]
    }

    /// Each device syncs, then reads every channel (oldest first).
    static func read(devices: [(label: String, account: Account)], channels: [(id: String, kind: String)],
                     labels: [String: String]) async throws -> [DeviceView] {
        var views: [DeviceView] = []
        for device in devices {
            try await device.account.sync()
            var read: [ChannelView] = []
            for channel in channels {
                let items = try await device.account.timeline(channelID: ChannelID(channel.id), limit: 100)
                read.append(ChannelView(channelID: channel.id, kind: channel.kind, messages: items.map { item in
                    let output = MessageOutput(item)
                    return Message(messageID: item.messageID.rawValue, sender: item.senderDeviceID.map { labels[$0.rawValue] ?? $0.rawValue } ?? "?",
                                   state: output.state, text: output.isReadable ? item.text : nil)
                }))
            }
            views.append(DeviceView(device: device.label, channels: read))
        }
        return views
    }

    /// Every way the readings fall short: a device that read a channel differently from the
    /// first device (other messages, order, texts or states), a message not readable, or a
    /// channel whose texts are not the ones sent to it, in sending order.
    static func problems(in views: [DeviceView], sent: [(channelID: String, text: String)]) -> [String] {
        guard let reference = views.first else { return ["no device read anything"] }
        var problems: [String] = []
        for channel in reference.channels {
            let expected = sent.filter { $0.channelID == channel.channelID }.map(\.text)
            if channel.messages.map(\.text) != expected {
                problems.append("\(reference.device) reads the \(channel.kind) as \(channel.messages.count) messages, not the \(expected.count) sent, in order")
            }
            for message in channel.messages where message.state != "decrypted" {
                problems.append("\(reference.device): a message in the \(channel.kind) is \(message.state)")
            }
        }
        for view in views.dropFirst() where view.channels != reference.channels {
            let differing = zip(view.channels, reference.channels).filter { $0 != $1 }.map(\.0.kind)
            problems.append("\(view.device) reads the \(differing.joined(separator: " and ")) differently from \(reference.device)")
        }
        return problems
    }
}
