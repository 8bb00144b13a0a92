import E2EECrypto
@testable import E2EEMessaging
@_spi(StoreInternals) import E2EEKeyStore
import Foundation
import Testing

/// What the app sees of the history part (docs/spec/protocol.md §11.9): transferred rows
/// labelled with the primary's device in the timeline, a later decryption's different text
/// surfaced, and the history scope's spellings and window.
@Suite struct HistoryTimelineTests {
    static func id() -> String { UUID().uuidString.lowercased() }

    static func record(channel: String, message: String, sender: String, device: String, text: String, payloadID: String) throws -> TransferRecord {
        .message(try MessageRecord(channelID: WireUUID(text: channel), messageID: WireUUID(text: message), senderID: WireUUID(text: sender),
                                   senderDeviceID: WireUUID(text: device), createdAt: 1_800_000_000_000_000, edited: false,
                                   payload: MessagePayload(id: WireUUID(text: payloadID), timestamp: 1_800_000_000_000, text: text).encodedJSON()))
    }

    @Test func transferredRowsAreLabelledAndADifferentDecryptionIsSurfaced() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("history-\(Self.id())", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = try KeyStore.open(at: directory.appendingPathComponent("store.sqlite"), key: .random())
        let channel = Self.id(), message = Self.id(), sender = Self.id(), device = Self.id(), primary = Self.id(), payloadID = Self.id()
        let report = try await store.importHistory([try Self.record(channel: channel, message: message, sender: sender, device: device,
                                                                    text: "from the phone", payloadID: payloadID)],
                                                   transferID: Self.id(), from: primary)
        #expect(report.inserted == 1)
        let reader = TimelineReader(store: store)
        let item = try #require(try await reader.page(channelID: ChannelID(stored: channel)).first)
        #expect(item.text == "from the phone" && item.state == .decrypted)
        #expect(item.transferredFrom == DeviceID(stored: primary))

        // This device decrypts the message itself, with another text: the label goes, the change shows.
        let own = TimelineMessage(messageID: message, channelID: channel, senderUserID: sender, senderDeviceID: device,
                                  createdAt: StoreTime(microseconds: 1_800_000_000_000_000), contentHash: SHA256.hash(Array(message.utf8)),
                                  state: .decrypted,
                                  plaintext: try MessagePayload(id: WireUUID(text: payloadID), timestamp: 1_800_000_000_000, text: "what was sent").encodedJSON())
        _ = try await store.storeReceiveBatch([ReceiveWrite(action: .decrypted(DecryptionCommit(message: own, processedAt: own.createdAt)),
                                                           facts: ReceivedFacts(kind: .message, payloadID: payloadID))])
        let after = try #require(try await reader.item(messageID: MessageID(stored: message)))
        #expect(after.text == "what was sent" && after.transferredFrom == nil)
        let changes = try await reader.transferredTextChanges()
        #expect(changes.map(\.transferredText) == ["from the phone"] && changes.map(\.decryptedText) == ["what was sent"])
        #expect(changes.first?.transferredFrom == DeviceID(stored: primary))
        try await reader.forgetTransferredTextChanges(changes.map(\.messageID))
        #expect(try await reader.transferredTextChanges().isEmpty)
    }

    @Test func historyScopeSpellingsAndWindow() {
        #expect(HistoryScope("none") == HistoryScope.none && HistoryScope("all") == .all && HistoryScope("30d") == .lastDays(30))
        #expect(HistoryScope("0d") == nil && HistoryScope("thirty") == nil && HistoryScope("-3d") == nil)
        #expect(HistoryScope.default == .lastDays(30) && HistoryScope.default.description == "30d")
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        #expect(HistoryScope.lastDays(30).window(now: now) == .since(StoreTime(microseconds: (1_800_000_000 - 30 * 86_400) * 1_000_000)))
        #expect(HistoryScope.none.window(now: now) == .nothing && HistoryScope.all.window(now: now) == .everything)
    }
}
