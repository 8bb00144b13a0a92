import AsyncHTTPClient
import E2EECrypto
import E2EEKeyStore
import E2EEMessaging
import E2EETransport
import Foundation
import Logging

/// The demo's script against a running server: alice and bob, a phone and a laptop each, with
/// real HTTP clients; each phone registers with a user key and links its user's laptop with two
/// typed codes (protocol text 1.3) — no one approves any device; a DM and a group, messages sent
/// from several devices, then what the server holds and who each envelope is addressed to, and
/// what every device reads once it caught up.
struct DemoScenario {
    let baseURL: String
    /// The HTTP client of every demo device.
    let client: HTTPClient
    let console: Console
    let logger: Logger

    /// One demo device.
    struct Device {
        let label: String
        let account: Account
        let store: KeyStore
    }

    func run() async throws -> DemoReport {
        // The phones hold their users' keys in primary files, which live beside an on-disk store.
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("e2ee-demo-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        console.progress("registering alice and bob on their phones, each with a user key…")
        let alicePhone = try await device("alice", "phone", registering: true, keyDirectory: directory)
        let bobPhone = try await device("bob", "phone", registering: true, keyDirectory: directory)
        var devices = [alicePhone, bobPhone]
        do {
            for phone in [alicePhone, bobPhone] { _ = try await phone.account.bootstrapKeys() }
            console.progress("logging in a laptop for each; it must be linked before it can send…")
            let aliceLaptop = try await device("alice", "laptop", registering: false)
            let bobLaptop = try await device("bob", "laptop", registering: false)
            devices = [alicePhone, aliceLaptop, bobPhone, bobLaptop]
            for laptop in [aliceLaptop, bobLaptop] { _ = try await laptop.account.bootstrapKeys() }
            for (laptop, phone) in [(aliceLaptop, alicePhone), (bobLaptop, bobPhone)] {
                let user = laptop.label.split(separator: "/").first.map(String.init) ?? laptop.label
                console.progress("\(user): linking the laptop to the phone with two codes…")
                _ = try await DemoLinking.link(laptop.account, to: phone.account, console: console, label: user)
            }
            let report = try await converse(alicePhone: alicePhone, aliceLaptop: aliceLaptop, bobPhone: bobPhone, bobLaptop: bobLaptop)
            var held = 0
            for device in devices { held += try await device.account.heldDevices().count }
            console.progress(held == 0
                ? "no device waited for anyone's approval: each laptop was linked with two codes, and contacts took it from its user's key"
                : "\(held) devices wait for an approval")
            for device in devices { await device.account.shutdown() }
            return report
        } catch {
            for device in devices { await device.account.shutdown() }
            throw error
        }
    }

    private func converse(alicePhone: Device, aliceLaptop: Device, bobPhone: Device, bobLaptop: Device) async throws -> DemoReport {
        let devices = [alicePhone, aliceLaptop, bobPhone, bobLaptop]
        let labels = Dictionary(uniqueKeysWithValues: devices.map { ($0.account.deviceID.rawValue, $0.label) })

        console.progress("alice/phone opens a DM with bob and sends…")
        let dm = try await alicePhone.account.openDirectMessage(with: bobPhone.account.userID)
        // Each other device accepts the DM as its user would, by opening it with the other user:
        // until then it is a request there (nothing sent, messages waiting).
        for device in [aliceLaptop, bobPhone, bobLaptop] {
            let other = device.account.userID == alicePhone.account.userID ? bobPhone.account.userID : alicePhone.account.userID
            _ = try await device.account.openDirectMessage(with: other)
        }
        var sent: [DemoReport.Sent] = []
        sent.append(try await send("Hi Bob, this is a DM from my phone.", from: alicePhone, to: dm.id.rawValue))
        sent.append(try await send("And this one comes from Bob's laptop.", from: bobLaptop, to: dm.id.rawValue))

        console.progress("alice/phone creates a group with bob and sends; bob/laptop answers…")
        let group = try await alicePhone.account.createGroup(name: "demo group", members: [bobPhone.account.userID])
        for device in [aliceLaptop, bobPhone, bobLaptop] { try await device.account.acceptChannel(group.id) }
        sent.append(try await send("Hello group!", from: alicePhone, to: group.id.rawValue))
        sent.append(try await send("Hi all, bob on the laptop.", from: bobLaptop, to: group.id.rawValue))
        sent.append(try await send("alice again, from the laptop.", from: aliceLaptop, to: group.id.rawValue))

        let reader = HTTPChatServer(baseURL: baseURL, session: try await AuthSession.restored(from: alicePhone.store), client: client)
        var channels: [DemoReport.ChannelView] = []
        for (channel, kind) in [(dm, "dm"), (group, "group")] {
            let messages = try await reader.messages(channelID: channel.id, before: nil, limit: 100).messages
            channels.append(DemoReport.ChannelView(channelID: channel.id.rawValue, kind: kind, messages: messages.map { message in
                DemoReport.Posted(serverID: message.id.rawValue, sender: message.senderDeviceID.map { labels[$0.rawValue] ?? $0.rawValue } ?? "?",
                                  contentType: message.contentType ?? "?", recipients: Self.recipients(of: message).map { labels[$0] ?? $0 })
            }))
        }
        console.progress("every device catches up and reads both channels…")
        let reading = try await DemoReading.read(devices: devices.map { ($0.label, $0.account) }, channels: [(dm.id.rawValue, "dm"), (group.id.rawValue, "group")],
                                                 labels: labels)
        return DemoReport(server: baseURL, devices: devices.map { DemoReport.DeviceInfo(label: $0.label, userID: $0.account.userID.rawValue, deviceID: $0.account.deviceID.rawValue) },
                          sent: sent, channels: channels, reading: reading,
                          problems: DemoReading.problems(in: reading, sent: sent.map { ($0.channelID, $0.text) }))
    }

    /// A demo device: a phone registers with a user key (its store on disk in `keyDirectory`,
    /// where its primary file goes); a laptop logs in with an in-memory store.
    private func device(_ username: String, _ name: String, registering: Bool, keyDirectory: URL? = nil) async throws -> Device {
        let store = try keyDirectory.map { try KeyStore.open(at: $0.appendingPathComponent("\(username)-\(name).sqlite"), key: .random()) }
            ?? KeyStore.inMemory()
        let server = HTTPChatServer(baseURL: baseURL, session: AuthSession(keyStore: store, serverURL: baseURL), client: client)
        let password = "demo-password-\(username)"
        var configuration = AccountConfiguration()
        if keyDirectory != nil {
            configuration.linking = .on
            configuration.primaryFileKeychain = DemoLinking.Keychain()
        }
        let account = registering
            ? try await Account.register(username: username, password: password, deviceName: name, server: server, store: store,
                                         configuration: configuration)
            : try await Account.login(username: username, password: password, deviceName: name, server: server, store: store,
                                      configuration: configuration)
        logger.debug("device ready", metadata: ["label": "\(username)/\(name)", "device": "\(account.deviceID)"])
        return Device(label: "\(username)/\(name)", account: account, store: store)
    }

    private func send(_ text: String, from device: Device, to channelID: String) async throws -> DemoReport.Sent {
        let queued = try await device.account.send(text: text, to: ChannelID(channelID))
        await device.account.waitForOutbox()
        let entries = try await device.account.outboxEntries(states: Set(OutboxState.allCases))
        guard let entry = entries.first(where: { $0.localID == queued.localID }) else {
            return DemoReport.Sent(device: device.label, channelID: channelID, text: text, state: queued.state.rawValue,
                                   serverID: queued.serverMessageID?.rawValue, error: queued.failureReason)
        }
        return DemoReport.Sent(device: device.label, channelID: channelID, text: text, state: entry.state.rawValue,
                               serverID: entry.serverMessageID?.rawValue, error: entry.lastError)
    }

    /// The devices a posted envelope is addressed to (DMs and SKDs list them; a group message
    /// goes to whoever holds the sender key).
    static func recipients(of message: ServerMessage) -> [String] {
        guard let bytes = try? Base64.decode(message.content, maxEncodedLength: ProtocolLimits.maxContentBase64Length),
              let envelope = try? Envelope.decode(bytes) else { return [] }
        switch envelope {
        case .dm(let dm): return dm.recipients.map(\.recipientDevice.text)
        case .senderKeyDistribution(let skd): return skd.recipients.map(\.recipientDevice.text)
        case .group: return []
        }
    }
}

/// What the demo did.
struct DemoReport: Encodable {
    struct DeviceInfo: Encodable {
        let label: String
        let userID: String
        let deviceID: String
        enum CodingKeys: String, CodingKey { case label, userID = "user_id", deviceID = "device_id" }
    }

    struct Sent: Encodable {
        let device: String
        let channelID: String
        let text: String
        let state: String
        let serverID: String?
        let error: String?
        enum CodingKeys: String, CodingKey { case device, channelID = "channel_id", text, state, serverID = "server_id", error }
    }

    struct Posted: Encodable {
        let serverID: String
        let sender: String
        let contentType: String
        let recipients: [String]
        enum CodingKeys: String, CodingKey { case serverID = "server_id", sender, contentType = "content_type", recipients }
    }

    struct ChannelView: Encodable {
        let channelID: String
        let kind: String
        let messages: [Posted]
        enum CodingKeys: String, CodingKey { case channelID = "channel_id", kind, messages }
    }

    let server: String
    let devices: [DeviceInfo]
    let sent: [Sent]
    let channels: [ChannelView]
    /// What each device read after catching up.
    let reading: [DemoReading.DeviceView]
    /// Where the devices disagree with each other or with what was sent (empty: they agree).
    let problems: [String]
    /// Whether every device read every message, in the same order.
    var agreed: Bool { problems.isEmpty }

    enum CodingKeys: String, CodingKey { case server, devices, sent, channels, reading, problems, agreed }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(server, forKey: .server)
        try container.encode(devices, forKey: .devices)
        try container.encode(sent, forKey: .sent)
        try container.encode(channels, forKey: .channels)
        try container.encode(reading, forKey: .reading)
        try container.encode(problems, forKey: .problems)
        try container.encode(agreed, forKey: .agreed)
    }

    var text: String {
        var lines = ["devices:"]
        lines += devices.map { "  \($0.label)  user \($0.userID)  device \($0.deviceID)" }
        lines.append("")
        lines.append("sent:")
        lines += sent.map { sent in
            "  \(sent.device) → \(channels.first { $0.channelID == sent.channelID }?.kind ?? "channel"): \"\(sent.text)\"  [\(sent.state)\(sent.error.map { ": \($0)" } ?? "")]"
        }
        for channel in channels {
            lines.append("")
            lines.append("on the server, \(channel.kind) \(channel.channelID) (opaque envelopes):")
            lines += channel.messages.map { posted in
                let to = posted.recipients.isEmpty ? "anyone holding the sender's group key" : posted.recipients.joined(separator: ", ")
                return "  \(posted.contentType)  from \(posted.sender)  to \(to)"
            }
        }
        for device in reading {
            lines.append("")
            lines.append("\(device.device) reads (after catching up):")
            for channel in device.channels {
                lines.append("  \(channel.kind):")
                lines += channel.messages.map { "    \($0.sender): \($0.text.map { "\"\(MessageOutput.oneLine($0))\"" } ?? "[\($0.state)]")" }
            }
        }
        lines.append("")
        lines += agreed
            ? ["all \(reading.count) devices read the same \(sent.count) messages in the same order."]
            : ["the devices do NOT agree:"] + problems.map { "  \($0)" }
        return lines.joined(separator: "\n")
    }
}
