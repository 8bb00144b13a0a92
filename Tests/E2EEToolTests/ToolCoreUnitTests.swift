import E2EEKeyStore
import E2EEMessaging
import E2EETransport
@testable import E2EEToolCore
import Foundation
import Testing

/// The tool's pure parts, in process: error classification, store naming, server addresses.
@Suite("Tool core")
struct ToolCoreUnitTests {
    @Test("errors of the layers below map to their documented exit codes")
    func classification() {
        #expect(ErrorClassifier.classify(ServerError.transport("ConnectError")).code == .serverUnreachable)
        #expect(ErrorClassifier.classify(ServerError.unauthenticated(detail: "bad")).code == .authentication)
        #expect(ErrorClassifier.classify(ServerError.sessionEnded).code == .authentication)
        #expect(ErrorClassifier.classify(ServerError.notFound(detail: nil)).code == .notFound)
        #expect(ErrorClassifier.classify(ServerError.conflict(detail: "Username already taken")).code == .serverRefused)
        #expect(ErrorClassifier.classify(KeyStoreError.wrongKey).code == .wrongPassphrase)
        #expect(ErrorClassifier.classify(MessagingError.noAccount).code == .notFound)
        #expect(ErrorClassifier.classify(MessagingError.unknownChannel("c")).code == .notFound)
        #expect(ErrorClassifier.classify(MessagingError.noRecipients(channelID: "c")).code == .notSent)
        #expect(ErrorClassifier.classify(ToolError(.timedOut, "x")).code == .timedOut)
        #expect(ErrorClassifier.classify(MessagingError.notPrimary).code == .notPrimary)
        #expect(ToolExitCode.notPrimary.rawValue == 15 && ToolExitCode.notPrimary.name == "not_primary")
        #expect(ErrorClassifier.classify(MessagingError.issuingStopped(.restoredFile)).message.contains("restoredFile"))
        #expect(ErrorClassifier.classify(CocoaError(.fileNoSuchFile)).code == .failure)
    }

    @Test("exit codes are distinct, named and all in the table")
    func exitCodeTable() {
        let codes = ToolExitCode.allCases
        #expect(Set(codes.map(\.rawValue)).count == codes.count)
        #expect(Set(codes.map(\.name)).count == codes.count)
        for code in codes { #expect(ToolExitCode.table.contains(code.name)) }
        #expect(ToolExitCode.usage.rawValue == 2)
    }

    @Test("default store names: host, port and lower-cased user, nothing that escapes the folder")
    func storeNames() throws {
        #expect(StoreLocation.defaultFileName(serverURL: "http://127.0.0.1:8000", username: "Alice") == "127.0.0.1_8000-alice.sqlite")
        #expect(StoreLocation.defaultFileName(serverURL: "https://chat.example.org", username: "../../etc/x") == "chat.example.org-.._.._etc_x.sqlite")
        let location = StoreLocation(environment: ["XDG_DATA_HOME": "/tmp/xdg", "HOME": "/home/u"])
        #expect(location.dataDirectory.path == "/tmp/xdg/e2ee-tool")
        #expect(StoreLocation(environment: ["HOME": "/home/u"]).dataDirectory.path == "/home/u/.local/share/e2ee-tool")
        #expect(StoreLocation(environment: ["XDG_DATA_HOME": "relative", "HOME": "/home/u"]).dataDirectory.path == "/home/u/.local/share/e2ee-tool")
    }

    @Test("server addresses are normalised; anything but http(s)://host[:port] is a usage error")
    func serverAddresses() throws {
        #expect(try ServerOption.normalise("http://127.0.0.1:8000/") == "http://127.0.0.1:8000")
        #expect(try ServerOption.normalise("https://chat.example.org/api/v1") == "https://chat.example.org")
        for bad in ["ftp://host", "127.0.0.1:8000", "http://", "http://host/path", "http://user@host"] {
            #expect(throws: ToolError.self, "\(bad)") { try ServerOption.normalise(bad) }
        }
    }

    @Test("the realtime endpoint follows the server's scheme, host and port")
    func webSocketURLs() throws {
        #expect(try ServerOption.address("http://127.0.0.1:8000").webSocketURL == "ws://127.0.0.1:8000/ws")
        #expect(try ServerOption.address("https://chat.example.org").webSocketURL == "wss://chat.example.org/ws")
        #expect(try ServerOption.address("HTTPS://chat.example.org:8443").webSocketURL == "wss://chat.example.org:8443/ws")
    }

    @Test("a message is one line: time, sender, escaped text and markers; JSON keys are snake_case")
    func messageLines() throws {
        let item = TimelineItem(messageID: "m1", channelID: "c1", senderUserID: "u1", senderDeviceID: "d1",
                                createdAt: ServerTimestamp(microseconds: 1_700_000_000_123_456), state: .decrypted,
                                text: "two\nlines \\ and a\ttab", replyTo: nil, editedAt: ServerTimestamp(microseconds: 1_700_000_001_000_000), isOwn: false)
        let output = MessageOutput(item, event: "message")
        let line = output.line(showingChannel: true)
        #expect(line == "2023-11-14T22:13:20.123456Z  c1  u1/d1  two\\nlines \\\\ and a\\ttab  [edited]")
        #expect(!line.contains("\n"))
        let json = try #require(try JSONSerialization.jsonObject(with: Data(Console.encodeLine(output).utf8)) as? [String: Any])
        #expect(json["text"] as? String == "two\nlines \\ and a\ttab")
        #expect(json["sender_device_id"] as? String == "d1")
        #expect(json["edited_at"] as? String == "2023-11-14T22:13:21Z")
        #expect(json["state"] as? String == "decrypted")

        var refused = item
        refused.state = .undecryptable(.badTag)
        refused.text = nil
        let notice = MessageOutput(refused, event: "undecryptable")
        #expect(!notice.isReadable)
        #expect(notice.reason == "bad_tag")
        #expect(notice.line(showingChannel: false).hasSuffix("u1/d1  [undecryptable: bad_tag]"))
        var pending = item
        pending.state = .pending
        pending.text = nil
        #expect(MessageOutput(pending).line(showingChannel: false).hasSuffix("u1/d1  [pending: waiting for a key]"))
        var afterLeaving = item
        afterLeaving.state = .undecryptable(.sentAfterLeaving)
        afterLeaving.text = nil
        let left = MessageOutput(afterLeaving, event: "undecryptable")
        #expect(left.reason == "sent_after_leaving")
        #expect(left.line(showingChannel: false).hasSuffix("u1/d1  [not a recipient: sent after this device left the channel]"))
        var removed = item
        removed.removedFromServer = true
        let kept = MessageOutput(removed)
        #expect(kept.line(showingChannel: false).hasSuffix("u1/d1  two\\nlines \\\\ and a\\ttab  [edited]  [removed from the server]"))
        let removedJSON = try #require(try JSONSerialization.jsonObject(with: Data(Console.encodeLine(kept).utf8)) as? [String: Any])
        #expect(removedJSON["removed_from_server"] as? Bool == true)
        #expect(removedJSON["text"] as? String == "two\nlines \\ and a\ttab", "the text is kept")
        #expect(json["flagged"] as? Bool == false)
        var held = item
        held.senderHeld = true
        let flagged = MessageOutput(held, event: "message")
        #expect(flagged.line(showingChannel: false).contains("u1/d1 [held sender: not approved here]  two"))
        let flaggedJSON = try #require(try JSONSerialization.jsonObject(with: Data(Console.encodeLine(flagged).utf8)) as? [String: Any])
        #expect(flaggedJSON["flagged"] as? Bool == true)
    }

    @Test("history from before this device is its own state, no error; our own messages carry their delivery state in JSON")
    func historyBeforeThisDeviceAndDelivery() throws {
        let before = TimelineItem(messageID: "m1", channelID: "c1", senderUserID: "u1", senderDeviceID: "d1",
                                  createdAt: ServerTimestamp(microseconds: 1_700_000_000_000_000), state: .sentBeforeThisDevice,
                                  text: nil, replyTo: nil, editedAt: nil, isOwn: false)
        let output = MessageOutput(before, event: "undecryptable")
        #expect(output.line(showingChannel: false) == "2023-11-14T22:13:20Z  u1/d1  [sent before this device was added]")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(Console.encodeLine(output).utf8)) as? [String: Any])
        #expect(json["state"] as? String == "sent_before_this_device")
        #expect(json["event"] as? String == "sent_before_this_device", "not reported as an undecryptable message")
        #expect(json["reason"] == nil)
        #expect(json["delivery"] == nil, "only our own messages have a delivery state")

        let own = TimelineItem(messageID: "m2", channelID: "c1", senderUserID: "u1", senderDeviceID: "d1",
                               createdAt: ServerTimestamp(microseconds: 1_700_000_000_000_000), state: .decrypted,
                               text: "hi", replyTo: nil, editedAt: nil, isOwn: true, delivery: .delivered)
        let ownJSON = try #require(try JSONSerialization.jsonObject(with: Data(Console.encodeLine(MessageOutput(own)).utf8)) as? [String: Any])
        #expect(ownJSON["delivery"] as? String == "delivered")
        #expect(ownJSON["not_sent"] as? Bool == false)

        let echo = TimelineItem(messageID: "e1", channelID: "c1", senderUserID: nil, senderDeviceID: nil,
                                createdAt: ServerTimestamp(microseconds: 1_700_000_000_000_000), state: .decrypted,
                                text: "later", replyTo: nil, editedAt: nil, isOwn: true, delivery: .queued, localID: "e1", isLocalEcho: true)
        #expect(MessageOutput(echo).line(showingChannel: false) == "2023-11-14T22:13:20Z  ?/? (this device)  later  [not sent yet: queued]")
        let echoJSON = try #require(try JSONSerialization.jsonObject(with: Data(Console.encodeLine(MessageOutput(echo)).utf8)) as? [String: Any])
        #expect(echoJSON["not_sent"] as? Bool == true)
        #expect(echoJSON["delivery"] as? String == "queued")
    }

    @Test("the demo's check finds a device that reads differently, a message it cannot read, and a missing message")
    func demoAgreement() {
        func view(_ device: String, _ texts: [String?], state: String = "decrypted") -> DemoReading.DeviceView {
            DemoReading.DeviceView(device: device, channels: [DemoReading.ChannelView(channelID: "c", kind: "dm", messages: texts.enumerated().map {
                DemoReading.Message(messageID: "m\($0.offset)", sender: "alice/phone", state: $0.element == nil ? "pending" : state, text: $0.element)
            })])
        }
        let sent: [(channelID: String, text: String)] = [("c", "one"), ("c", "two")]
        #expect(DemoReading.problems(in: [view("a", ["one", "two"]), view("b", ["one", "two"])], sent: sent).isEmpty)
        #expect(DemoReading.problems(in: [view("a", ["one", "two"]), view("b", ["two", "one"])], sent: sent).count == 1)
        #expect(DemoReading.problems(in: [view("a", ["one", nil]), view("b", ["one", nil])], sent: sent).count == 2)
        #expect(DemoReading.problems(in: [view("a", ["one"]), view("b", ["one"])], sent: sent).count == 1)
    }

    @Test("safety-number digits are shown in groups of five")
    func digitGroups() {
        #expect(DigitGroups.format("123456789012") == "12345 67890 12")
        #expect(DigitGroups.format("") == "")
    }
}
