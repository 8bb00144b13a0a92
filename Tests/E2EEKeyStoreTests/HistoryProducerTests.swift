import E2EECrypto
@_spi(StoreInternals) @testable import E2EEKeyStore
import Foundation
import GRDB
import Testing

/// The primary's side of the history part (docs/spec/protocol.md §11.7, §11.8) on a real
/// SQLite file: which messages become records, the scope, the budget cut at the oldest end,
/// batches, and phase 2's changes since the snapshot mark.
@Suite struct HistoryProducerTests {
    typealias F = HistoryFixture
    let f = HistoryFixture()
    var since30Days: HistoryWindow { .since(StoreTime(microseconds: F.now - 30 * F.day)) }

    private func produce(_ store: KeyStore, window: HistoryWindow, budget: HistoryBudget = HistoryBudget(), batchSize: Int = 256,
                         transfer: String? = nil) async throws -> (F.Collected, HistoryPartSummary) {
        let collected = F.Collected()
        let summary = try await store.produceHistorySnapshot(transferID: transfer ?? f.transfer, window: window, budget: budget,
                                                             batchSize: batchSize, now: StoreTime(microseconds: F.now)) { collected.add($0) }
        return (collected, summary)
    }

    @Test func onlyShownMessagesInChannelsNotLeftAndInScopeBecomeRecords() async throws {
        let p = try f.open("primary")
        let recent = F.id(), own = F.id(), old = F.id(), pending = F.id(), refused = F.id(), inLeft = F.id(), edited = F.id()
        let leftChannel = F.id()
        try await f.receive(p, recent, text: "recent", at: F.now - 2 * F.day)
        try await f.receive(p, own, text: "mine", at: F.now - F.day, isOwn: true)
        try await f.receive(p, old, text: "old", at: F.now - 40 * F.day)
        try await f.receive(p, edited, text: "edited text", at: F.now - 3 * F.day, editedAt: StoreTime(microseconds: F.now - F.day))
        try await f.outcome(p, pending, state: .pendingKey, at: F.now - F.day)
        try await f.outcome(p, refused, state: .undecryptable(reason: "bad_signature"), at: F.now - F.day)
        try await f.receive(p, inLeft, text: "left behind", channel: leftChannel, at: F.now - F.day)
        try await p.recordDeparture(channelID: leftChannel)
        let tombstoned = try await f.receive(p, F.id(), text: "to delete", at: F.now - F.day)
        try await f.tombstone(p, deleting: tombstoned, at: F.now - F.day + 1)

        let (last30, summary) = try await produce(p, window: since30Days)
        #expect(Set(last30.records.map(F.messageID)) == [recent, own, edited])
        #expect(summary.recordCount == 3 && summary.messageCount == 3 && !summary.truncated)
        let (all, _) = try await produce(p, window: .everything)
        #expect(Set(all.records.map(F.messageID)) == [recent, own, edited, old])
        let (none, noneSummary) = try await produce(p, window: .nothing)
        #expect(none.records.isEmpty && noneSummary.recordCount == 0)

        // The payload is the stored §6.1 bytes, as held; the sender is the row's; edited is flagged.
        for record in all.records {
            guard case .message(let message) = record else { Issue.record("not a message record"); continue }
            #expect(message.payload == (try await p.message(id: message.messageID.text))?.plaintext)
            #expect(message.edited == (message.messageID.text == edited))
            #expect(message.senderDeviceID.text == (message.messageID.text == own ? f.primaryDevice : f.bobPhone))
            // Each record round-trips through the wire form a chunk carries.
            #expect(try TransferRecord.decode(record.encoded()) == record)
        }
        #expect(summary.byteCount == last30.records.reduce(0) { $0 + $1.encoded().count })
    }

    @Test func recordsComeInBatchesChannelByChannelOldestFirst() async throws {
        let p = try f.open("primary")
        var ids: [String: [String]] = [:]
        for (index, channel) in [f.channel, f.other].enumerated() {
            for n in 0..<5 {
                let id = F.id()
                ids[channel, default: []].append(id)
                try await f.receive(p, id, text: "m\(n)", channel: channel, at: F.now - F.day + Int64(n * 10 + index))
            }
        }
        let (collected, summary) = try await produce(p, window: .everything, batchSize: 3)
        #expect(collected.batches == [3, 3, 3, 1])
        #expect(summary.recordCount == 10)
        let expected = [f.channel, f.other].sorted().flatMap { ids[$0] ?? [] }
        #expect(collected.records.map(F.messageID) == expected)
    }

    @Test func overTheBudgetTheOldestEndIsCut() async throws {
        let p = try f.open("primary")
        var ids: [String] = []
        for n in 0..<10 {
            let id = F.id()
            ids.append(id)
            try await f.receive(p, id, text: "message \(n)", channel: n.isMultiple(of: 2) ? f.channel : f.other, at: F.now - F.day + Int64(n))
        }
        let (whole, wholeSummary) = try await produce(p, window: .everything)
        #expect(!wholeSummary.truncated)
        let sizes = Dictionary(uniqueKeysWithValues: whole.records.map { (F.messageID(of: $0), $0.encoded().count) })
        // Bytes for exactly the newest four.
        let four = ids.suffix(4).reduce(0) { $0 + (sizes[$1] ?? 0) }
        let (cut, summary) = try await produce(p, window: .everything, budget: HistoryBudget(bytes: four + 10))
        #expect(summary.truncated)
        #expect(Set(cut.records.map(F.messageID)) == Set(ids.suffix(4)))
        #expect(summary.byteCount == four)
        // The record count bounds the same way.
        let (counted, countedSummary) = try await produce(p, window: .everything, budget: HistoryBudget(records: 3))
        #expect(countedSummary.truncated && Set(counted.records.map(F.messageID)) == Set(ids.suffix(3)))
        // A budget nothing fits sends nothing.
        let (nothing, nothingSummary) = try await produce(p, window: .everything, budget: HistoryBudget(bytes: 10))
        #expect(nothing.records.isEmpty && nothingSummary.truncated)
    }

    @Test func phaseTwoListsDeletionsEditsAndArrivalsSinceTheMark() async throws {
        let p = try f.open("primary")
        let kept = F.id(), toEdit = F.id(), toDelete = F.id(), ownDeleted = F.id(), outOfScope = F.id()
        try await f.receive(p, kept, text: "kept", at: F.now - 5 * F.day)
        let editPayload = try await f.receive(p, toEdit, text: "first", at: F.now - 4 * F.day)
        let deletedPayload = try await f.receive(p, toDelete, text: "doomed", at: F.now - 3 * F.day)
        try await f.receive(p, ownDeleted, text: "mine", at: F.now - 3 * F.day, isOwn: true)
        try await f.receive(p, outOfScope, text: "ancient", at: F.now - 90 * F.day)
        let (phase1, summary1) = try await produce(p, window: since30Days)
        #expect(phase1.records.count == 4)

        // After the mark: an edit, a sender's delete, our own delete, an arrival, a change out of scope.
        try await f.receive(p, toEdit, text: "second", at: F.now - 4 * F.day, payloadID: editPayload, editedAt: StoreTime(microseconds: F.now))
        try await f.tombstone(p, deleting: deletedPayload, at: F.now)
        _ = try await p.write { db in try p.timelineStore.markDeleted(id: ownDeleted, db) }
        let arrival = F.id()
        try await f.receive(p, arrival, text: "new", at: F.now)
        try await f.receive(p, outOfScope, text: "ancient, edited", at: F.now - 90 * F.day, editedAt: StoreTime(microseconds: F.now))

        let collected = F.Collected()
        let summary2 = try await p.produceHistoryChanges(transferID: f.transfer, window: since30Days) { collected.add($0) }
        #expect(summary2.mark == summary1.mark)
        let records = collected.records
        #expect(Set(records.map(F.messageID)) == [toEdit, toDelete, ownDeleted, arrival])
        #expect(records.contains(.deleted(channelID: try WireUUID(text: f.channel), messageID: try WireUUID(text: toDelete))))
        #expect(records.contains(.deleted(channelID: try WireUUID(text: f.channel), messageID: try WireUUID(text: ownDeleted))))
        let edit = records.first { F.messageID(of: $0) == toEdit }
        #expect(edit.flatMap(F.text) == "second")
        if case .message(let message)? = edit { #expect(message.edited) } else { Issue.record("no edit record") }
        #expect(records.first { F.messageID(of: $0) == arrival }.flatMap(F.text) == "new")
        #expect(summary2.deletedCount == 2 && summary2.messageCount == 2)

        // The mark survives until closed; closing ends the log.
        #expect(try await p.openHistoryMarks()[f.transfer] == summary1.mark)
        try await p.closeHistorySnapshot(transferID: f.transfer)
        #expect(try await p.openHistoryMarks().isEmpty)
        try await f.receive(p, F.id(), text: "after the end", at: F.now)
        #expect(try await p.read { db in try db.count("SELECT COUNT(*) FROM history_changes") } == 0)
        await #expect(throws: KeyStoreError.self) {
            try await p.produceHistoryChanges(transferID: f.transfer, window: .everything) { _ in }
        }
    }

    @Test func withoutAnOpenMarkTimelineWritesLogNothing() async throws {
        let p = try f.open("primary")
        try await f.receive(p, F.id(), text: "one", at: F.now)
        #expect(try await p.read { db in try db.count("SELECT COUNT(*) FROM history_changes") } == 0)
        _ = try await produce(p, window: .everything)
        try await f.receive(p, F.id(), text: "two", at: F.now)
        #expect(try await p.read { db in try db.count("SELECT COUNT(*) FROM history_changes") } == 1)
    }

    /// The triggers on `timeline`, by name.
    private func timelineTriggers(_ store: KeyStore) async throws -> [String] {
        try await store.read { db in
            try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'trigger' AND tbl_name = 'timeline' ORDER BY name")
        }
    }

    @Test func theLogsTriggersExistOnlyWhileAMarkIsOpen() async throws {
        let p = try f.open("primary")
        // Without a mark no trigger on the table runs for an inserted row (schema v31).
        #expect(try await timelineTriggers(p) == ["history_replaced"])
        _ = try await produce(p, window: .everything, transfer: "transfer-a")
        _ = try await produce(p, window: .everything, transfer: "transfer-b")
        #expect(try await timelineTriggers(p) == ["history_change_insert", "history_change_update", "history_replaced"])

        // One mark closed, the other open: still logging.
        try await p.closeHistorySnapshot(transferID: "transfer-a")
        #expect(try await timelineTriggers(p).count == 3)
        try await f.receive(p, F.id(), text: "while b is open", at: F.now)
        #expect(try await p.read { db in try db.count("SELECT COUNT(*) FROM history_changes") } == 1)

        // The last mark closed: the log and its triggers go; a new mark brings them back.
        try await p.closeHistorySnapshot(transferID: "transfer-b")
        #expect(try await timelineTriggers(p) == ["history_replaced"])
        try await f.receive(p, F.id(), text: "after both", at: F.now)
        #expect(try await p.read { db in try db.count("SELECT COUNT(*) FROM history_changes") } == 0)
        let (_, again) = try await produce(p, window: .everything, transfer: "transfer-c")
        #expect(again.mark == 0)
        try await f.receive(p, F.id(), text: "under c", at: F.now)
        #expect(try await p.read { db in try db.count("SELECT COUNT(*) FROM history_changes") } == 1)
    }
}
