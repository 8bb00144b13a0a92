import E2EECrypto
@_spi(StoreInternals) @testable import E2EEKeyStore
import Foundation
import GRDB
import Testing

/// The new device's side of the history part (docs/spec/protocol.md §11.9) on a real SQLite
/// file: each merge rule, K40 (a primary's `deleted` record erases only what its transfer
/// imported), tombstones, a later decryption replacing a transferred text, and the import
/// inside the caller's transaction.
@Suite struct HistoryImportTests {
    typealias F = HistoryFixture
    let f = HistoryFixture()

    private func importing(_ n: KeyStore, _ records: [TransferRecord], transfer: String? = nil) async throws -> HistoryImportReport {
        try await n.importHistory(records, transferID: transfer ?? f.transfer, from: f.primaryDevice)
    }

    @Test func aNewMessageBecomesALabelledTransferredRow() async throws {
        let n = try f.open("new")
        let id = F.id()
        let record = try f.record(id, text: "from history", at: F.now - F.day)
        let report = try await importing(n, [record])
        #expect(report.inserted == 1 && report.recordCount == 1)
        let row = try #require(try await n.message(id: id))
        #expect(row.state == .decrypted && row.channelID == f.channel && row.senderUserID == f.bob && row.senderDeviceID == f.bobPhone)
        #expect(row.createdAt.microseconds == F.now - F.day && !row.isOwn)
        if case .message(let message) = record { #expect(row.plaintext == message.payload) }
        #expect(try await F.label(n, id) == f.primaryDevice)
        // The same record again (a resend, or phase 2 repeating it) adds no second row.
        let again = try await importing(n, [record])
        #expect(again.updated == 1)
        #expect(try await n.read { db in try db.count("SELECT COUNT(*) FROM timeline") } == 1)
    }

    @Test func aRowThisDeviceDecryptedStaysAndAnUnencryptedOneToo() async throws {
        let n = try f.open("new")
        let mine = F.id(), plain = F.id()
        try await f.receive(n, mine, text: "as I read it", at: F.now - F.day)
        try await f.outcome(n, plain, state: .unencrypted, at: F.now - F.day)
        let report = try await importing(n, [try f.record(mine, text: "as the primary says", at: F.now - F.day),
                                             try f.record(plain, text: "other", at: F.now - F.day)])
        #expect(report.keptOwn == 2)
        #expect(try await F.text(n, mine) == "as I read it")
        #expect(try await F.label(n, mine) == nil)
        #expect(try await F.label(n, plain) == nil)
    }

    @Test func aPendingRowTakesTheTextAndALaterDecryptionReplacesItSurfacingTheDifference() async throws {
        let n = try f.open("new")
        let waiting = F.id(), same = F.id()
        try await f.outcome(n, waiting, state: .pendingKey, at: F.now - F.day)
        try await f.outcome(n, same, state: .pendingKey, at: F.now - F.day)
        let payloadID = F.id(), samePayload = F.id()
        let report = try await importing(n, [try f.record(waiting, text: "transferred", at: F.now - F.day, payloadID: payloadID),
                                             try f.record(same, text: "identical", at: F.now - F.day, payloadID: samePayload)])
        #expect(report.filled == 2)
        #expect(try await F.text(n, waiting) == "transferred")
        #expect(try await F.label(n, waiting) == f.primaryDevice)
        // The ciphertext still waits for its key.
        #expect(try await n.pendingReceives(waitingFor: ["session:\(f.bob)/\(f.bobPhone)"]).map(\.pending.messageID).contains(waiting))

        // The key comes: this device's own decryption replaces the text and drops the label.
        try await f.receive(n, waiting, text: "what Bob really wrote", at: F.now - F.day, payloadID: payloadID)
        #expect(try await F.text(n, waiting) == "what Bob really wrote")
        #expect(try await F.label(n, waiting) == nil)
        let replacements = try await n.historyReplacements()
        let replaced = try #require(replacements.first { $0.messageID == waiting })
        #expect(replaced.differs && replaced.transferID == f.transfer && replaced.sourceDeviceID == f.primaryDevice)
        #expect(try replaced.transferredPayload.map { try MessagePayload(json: $0).text } == "transferred")
        // A decryption that matches the transferred text is kept too, but does not differ.
        if case .message(let message) = try f.record(same, text: "identical", at: F.now - F.day, payloadID: samePayload) {
            var row = Fixtures.message(same, channel: f.channel, at: F.now - F.day)
            row.senderUserID = f.bob
            row.senderDeviceID = f.bobPhone
            row.plaintext = message.payload
            _ = try await n.storeReceiveBatch([ReceiveWrites.decrypted(row, payloadID: samePayload)])
        }
        #expect(try await n.historyReplacements().first { $0.messageID == same }?.differs == false)
        try await n.forgetHistoryReplacements(messageIDs: [waiting, same])
        #expect(try await n.historyReplacements().isEmpty)
    }

    @Test func aRowUndecryptableForWantOfAKeyTakesTheTextARefusedOneStaysRefused() async throws {
        let n = try f.open("new")
        let notForMe = F.id(), forged = F.id(), tooOld = F.id()
        try await f.outcome(n, notForMe, state: .undecryptable(reason: "not_a_recipient"), at: F.now - F.day)
        try await f.outcome(n, forged, state: .undecryptable(reason: "bad_signature"), at: F.now - F.day)
        try await f.outcome(n, tooOld, state: .undecryptable(reason: "sender_mismatch"), at: F.now - F.day)
        let report = try await importing(n, [try f.record(notForMe, text: "history", at: F.now - F.day),
                                             try f.record(forged, text: "whitewashed", at: F.now - F.day),
                                             try f.record(tooOld, text: "whitewashed", at: F.now - F.day)])
        #expect(report.filled == 1 && report.keptRefused == 2)
        #expect(try await F.text(n, notForMe) == "history")
        #expect(try await n.message(id: forged)?.state == .undecryptable(reason: "bad_signature"))
        #expect(try await n.message(id: tooOld)?.state == .undecryptable(reason: "sender_mismatch"))
        #expect(try await F.label(n, forged) == nil)
    }

    @Test func tombstonesThisDeviceHoldsApplyToTransferredRows() async throws {
        let n = try f.open("new")
        let before = F.id(), after = F.id()
        let beforePayload = F.id(), afterPayload = F.id()
        // A tombstone held before the import: the message arrives erased.
        try await f.tombstone(n, deleting: beforePayload, at: F.now - F.day)
        let report = try await importing(n, [try f.record(before, text: "deleted already", at: F.now - 2 * F.day, payloadID: beforePayload),
                                             try f.record(after, text: "deleted later", at: F.now - 2 * F.day, payloadID: afterPayload)])
        #expect(report.tombstoned == 1 && report.inserted == 1)
        #expect(try await n.message(id: before)?.state == .deleted)
        #expect(try await n.message(id: before)?.plaintext == nil)
        // A tombstone received after the import finds the transferred row by its payload id.
        try await f.tombstone(n, deleting: afterPayload, at: F.now)
        #expect(try await n.message(id: after)?.state == .deleted)
    }

    @Test func aDeletedRecordErasesOnlyWhatThisTransferImported() async throws {
        // K40 at the store: a primary's `deleted` naming a message this device decrypted itself
        // (or one another transfer imported, or none) erases nothing.
        let n = try f.open("new")
        let own = F.id(), imported = F.id(), otherTransfer = F.id(), unknown = F.id()
        try await f.receive(n, own, text: "decrypted here", at: F.now - F.day)
        _ = try await importing(n, [try f.record(imported, text: "imported", at: F.now - F.day)])
        _ = try await importing(n, [try f.record(otherTransfer, text: "earlier transfer", at: F.now - F.day)], transfer: F.id())
        let channel = try WireUUID(text: f.channel)
        let report = try await importing(n, [.deleted(channelID: channel, messageID: try WireUUID(text: own)),
                                             .deleted(channelID: channel, messageID: try WireUUID(text: otherTransfer)),
                                             .deleted(channelID: channel, messageID: try WireUUID(text: unknown)),
                                             .deleted(channelID: try WireUUID(text: f.other), messageID: try WireUUID(text: imported)),
                                             .deleted(channelID: channel, messageID: try WireUUID(text: imported))])
        #expect(report.deletesIgnored == 4 && report.erased == 1)
        #expect(try await F.text(n, own) == "decrypted here")
        #expect(try await F.text(n, otherTransfer) == "earlier transfer")
        #expect(try await n.message(id: imported)?.state == .deleted)
        #expect(try await n.message(id: unknown) == nil)
    }

    @Test func recordsThatDoNotFitAreIgnored() async throws {
        let n = try f.open("new")
        let elsewhere = F.id(), reused = F.id(), control = F.id()
        try await f.receive(n, elsewhere, text: "in another channel", channel: f.other, at: F.now - F.day)
        let usedPayload = try await f.receive(n, F.id(), text: "first use", at: F.now - F.day)
        let tombstone = try MessageRecord(channelID: WireUUID(text: f.channel), messageID: WireUUID(text: control), senderID: WireUUID(text: f.bob),
                                          senderDeviceID: WireUUID(text: f.bobPhone), createdAt: 1, edited: false,
                                          payload: MessagePayload(id: WireUUID(text: F.id()), timestamp: 1, text: "", deleteOf: WireUUID(text: usedPayload)).encodedJSON())
        let report = try await importing(n, [try f.record(elsewhere, text: "moved", at: F.now - F.day),
                                             try f.record(reused, text: "reuses a payload id", at: F.now - F.day, payloadID: usedPayload),
                                             .message(tombstone)])
        #expect(report.conflicts == 2 && report.invalid == 1)
        #expect(try await F.text(n, elsewhere) == "in another channel")
        #expect(try await n.message(id: reused) == nil)
        #expect(try await n.message(id: control) == nil)
    }

    @Test func theImportIsPartOfTheCallersTransaction() async throws {
        let n = try f.open("new")
        let id = F.id()
        let records = [try f.record(id, text: "with the chunk", at: F.now)]
        struct ChunkCommitFailed: Error {}
        await #expect(throws: ChunkCommitFailed.self) {
            try await n.write { [f] db in
                _ = try n.importHistory(records, transferID: f.transfer, from: f.primaryDevice, db)
                throw ChunkCommitFailed()
            }
        }
        #expect(try await n.message(id: id) == nil)
        let report = try await n.write { [f] db in try n.importHistory(records, transferID: f.transfer, from: f.primaryDevice, db) }
        #expect(report.inserted == 1)
        #expect(try await F.text(n, id) == "with the chunk")
    }

    @Test func aPrimarysHistoryArrivesWholeAtTheNewDevice() async throws {
        let p = try f.open("primary"), n = try f.open("new")
        var texts: [String: String] = [:]
        for index in 0..<30 {
            let id = F.id()
            texts[id] = "message \(index)"
            try await f.receive(p, id, text: "message \(index)", channel: index.isMultiple(of: 3) ? f.other : f.channel,
                                at: F.now - Int64(index) * F.day / 2, isOwn: index.isMultiple(of: 5))
        }
        let collected = F.Collected()
        let summary = try await p.produceHistorySnapshot(transferID: f.transfer, window: .everything, batchSize: 7) { collected.add($0) }
        // Through the wire form, chunk by chunk, each chunk's import in its own transaction.
        var imported = HistoryImportReport()
        for start in stride(from: 0, to: collected.records.count, by: 7) {
            let chunk = try collected.records[start..<min(start + 7, collected.records.count)].map { try TransferRecord.decode($0.encoded()) }
            let report = try await n.importHistory(chunk, transferID: f.transfer, from: f.primaryDevice)
            imported.inserted += report.inserted
        }
        #expect(summary.recordCount == 30 && imported.inserted == 30)
        for (id, text) in texts {
            #expect(try await F.text(n, id) == text)
            #expect(try await F.label(n, id) == f.primaryDevice)
        }
    }
}
