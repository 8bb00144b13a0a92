import E2EECrypto
@_spi(StoreInternals) @testable import E2EEKeyStore
import Foundation
import GRDB

/// Stores on real SQLite files for the history part of a link transfer: a primary P whose
/// timeline is filled as the receive pipeline fills it, and a new device N that imports.
struct HistoryFixture {
    static func id() -> String { UUID().uuidString.lowercased() }
    static let day: Int64 = 86_400_000_000
    /// "Now" for the tests: 2027-01-15, in microseconds.
    static let now: Int64 = 1_800_000_000_000_000

    let directory = try! TemporaryDirectory()
    let primaryDevice = Self.id(), bob = Self.id(), bobPhone = Self.id(), alice = Self.id(), transfer = Self.id()
    let channel = Self.id(), other = Self.id()

    func open(_ name: String) throws -> KeyStore {
        try KeyStore.open(at: directory.url.appendingPathComponent("\(name).sqlite"), key: .random())
    }

    /// A §6.1 payload.
    static func payload(_ text: String, id: String = HistoryFixture.id(), ts: Int64 = 1_700_000_000_000, editOf: String? = nil) throws -> SecretBytes {
        try MessagePayload(id: WireUUID(text: id), timestamp: ts, text: text, editOf: editOf.map { try WireUUID(text: $0) }).encodedJSON()
    }

    /// Stores a decrypted message from Bob's phone, as the receive pipeline does; returns its payload id.
    @discardableResult
    func receive(_ store: KeyStore, _ messageID: String, text: String, channel: String? = nil, at micros: Int64, payloadID: String = HistoryFixture.id(),
                 editedAt: StoreTime? = nil, isOwn: Bool = false) async throws -> String {
        var row = Fixtures.message(messageID, channel: channel ?? self.channel, at: micros, plaintext: nil)
        row.senderUserID = isOwn ? alice : bob
        row.senderDeviceID = isOwn ? primaryDevice : bobPhone
        row.isOwn = isOwn
        row.plaintext = try Self.payload(text, id: payloadID, editOf: editedAt == nil ? nil : messageID)
        _ = try await store.storeReceiveBatch([ReceiveWrites.decrypted(row, payloadID: payloadID, editedAt: editedAt)])
        return payloadID
    }

    /// A row of Bob's in `state` (pending with its ciphertext, or a final outcome).
    func outcome(_ store: KeyStore, _ messageID: String, state: TimelineState, channel: String? = nil, at micros: Int64) async throws {
        var row = Fixtures.message(messageID, channel: channel ?? self.channel, at: micros, state: state)
        row.senderUserID = bob
        row.senderDeviceID = bobPhone
        if state == .pendingKey {
            _ = try await store.storeReceiveBatch([ReceiveWrites.pending(row, content: "envelope \(messageID)", waitingFor: "session:\(bob)/\(bobPhone)")])
        } else {
            _ = try await store.storeReceiveBatch([ReceiveWrites.outcome(row)])
        }
    }

    /// A trusted tombstone of Bob's naming `payloadID`.
    func tombstone(_ store: KeyStore, deleting payloadID: String, channel: String? = nil, at micros: Int64) async throws {
        var write = ReceiveWrites.tombstone(Self.id(), deleting: payloadID, channel: channel ?? self.channel, user: bob, at: micros)
        if case .decrypted(var commit) = write.action {
            commit.message.senderDeviceID = bobPhone
            commit.message.plaintext = nil
            write.action = .decrypted(commit)
        }
        _ = try await store.storeReceiveBatch([write])
    }

    /// A message record of Bob's phone.
    func record(_ messageID: String, text: String, channel: String? = nil, at micros: Int64, payloadID: String = HistoryFixture.id(),
                edited: Bool = false) throws -> TransferRecord {
        .message(try MessageRecord(channelID: WireUUID(text: channel ?? self.channel), messageID: WireUUID(text: messageID),
                                   senderID: WireUUID(text: bob), senderDeviceID: WireUUID(text: bobPhone), createdAt: UInt64(micros),
                                   edited: edited, payload: Self.payload(text, id: payloadID)))
    }

    /// Everything phase 1 or 2 hands out, in order, and the batch sizes.
    final class Collected: @unchecked Sendable {
        private let lock = NSLock()
        private var _records: [TransferRecord] = []
        private var _batches: [Int] = []
        var records: [TransferRecord] { lock.withLock { _records } }
        var batches: [Int] { lock.withLock { _batches } }
        func add(_ batch: [TransferRecord]) { lock.withLock { _records += batch; _batches.append(batch.count) } }
    }

    static func text(of record: TransferRecord) -> String? {
        guard case .message(let message) = record else { return nil }
        return try? MessagePayload(json: message.payload).text
    }

    static func messageID(of record: TransferRecord) -> String {
        switch record {
        case .message(let message): message.messageID.text
        case .deleted(_, let message): message.text
        case .trust: ""
        }
    }

    static func text(_ store: KeyStore, _ messageID: String) async throws -> String? {
        guard let plaintext = try await store.message(id: messageID)?.plaintext else { return nil }
        return try MessagePayload(json: plaintext).text
    }

    static func label(_ store: KeyStore, _ messageID: String) async throws -> String? {
        try await store.transferredSources(messageIDs: [messageID])[messageID]
    }
}
