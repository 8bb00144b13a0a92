import E2EECrypto
@_spi(StoreInternals) @testable import E2EEKeyStore
import E2EETestSupport
import Foundation
import GRDB
import Testing

/// docs/spec/protocol.md §11.3: the snapshot is spooled sealed on disk, in whole-record chunks,
/// trust records first; its figures and digest are those of the records in order.
@Suite struct TransferSpoolTests {
    static let zero = try! WireUUID(bytes: [UInt8](repeating: 0, count: 16))

    static func channelRecord(_ index: Int) -> TrustRecord {
        var bytes = [UInt8](repeating: 0x22, count: 16)
        bytes[12] = UInt8(index >> 24 & 0xFF); bytes[13] = UInt8(index >> 16 & 0xFF); bytes[14] = UInt8(index >> 8 & 0xFF); bytes[15] = UInt8(index & 0xFF)
        return .channel(channelID: (try? WireUUID(bytes: bytes)) ?? Self.zero, kind: .group, standing: .accepted)
    }

    @Test("records spool into sealed whole-record chunks; read back in order they give the same records and digest")
    func roundTrip() async throws {
        let dir = try TemporaryDirectory()
        let store = try KeyStore.open(at: dir.storeURL, key: .random())
        let records = (0..<9_000).map { TransferRecord.trust(Self.channelRecord($0)) }
        let summary = try await store.writeSpool(transferID: "t1", phase: 1) { writer in
            for record in records { try writer.append(record) }
        }
        #expect(summary.recordCount == 9_000 && summary.trustCount == 9_000)
        #expect(summary.chunkCount > 1, "several chunks")
        var expected = TransferDigest()
        for record in records { expected.add(record) }
        #expect(summary.digest == expected.digest)

        var read: [TransferRecord] = []
        var digest = TransferDigest()
        for chunk in 0..<Int(summary.chunkCount) {
            let bytes = try #require(try await store.spoolChunk(transferID: "t1", phase: 1, chunk: chunk))
            #expect(bytes.count <= TransferSpoolWriter.recordRoom)
            var decoder = TransferRecordDecoder(records: bytes)
            while let record = try decoder.next(updating: &digest) { read.append(record) }
        }
        #expect(read == records)
        #expect(digest.digest == summary.digest)
        #expect(try await store.spoolRecordCount(transferID: "t1", phase: 1, below: Int(summary.chunkCount)) == 9_000)

        // Sealed: no chunk's records appear in clear in the file.
        let raw = try await store.read { db in try Data.fetchOne(db, sql: "SELECT records FROM transfer_spool LIMIT 1") }
        let first = try #require(try await store.spoolChunk(transferID: "t1", phase: 1, chunk: 0))
        #expect(raw.map { [UInt8]($0) } != first.withUnsafeBytes { Array($0) })
        #expect(raw?.range(of: Data(first.withUnsafeBytes { Array($0.prefix(64)) })) == nil, "a chunk stored in clear")
    }

    @Test("a trust record after another kind is refused (trust records come first)")
    func trustFirst() async throws {
        let store = try KeyStore.inMemory()
        let message = TransferRecord.deleted(channelID: Self.zero, messageID: Self.zero)
        await #expect(throws: TransferSpoolWriter.Refusal.trustAfterOtherKinds) {
            _ = try await store.writeSpool(transferID: "t2", phase: 1) { writer in
                try writer.append(message)
                try writer.append(.trust(Self.channelRecord(1)))
            }
        }
    }

    @Test("a transfer cancelled in the store is not written over by its run, and its spool is gone")
    func cancelledStaysCancelled() async throws {
        let store = try KeyStore.inMemory()
        _ = try await store.writeSpool(transferID: "t3", phase: 1) { writer in try writer.append(.trust(Self.channelRecord(1))) }
        let state = OutgoingTransferState(transferID: "t3", deviceID: "d", channelID: "c", manifest1: [1], startedAt: 0, progressAt: 0,
                                          timeoutAt: 0, timeoutSeconds: 60)
        try await store.saveOutgoingTransfer(state)
        #expect(try await store.cancelStoredTransfer("t3"))
        await #expect(throws: TransferStopped.self) { try await store.saveOutgoingTransfer(state) }
        #expect(try await store.outgoingTransfers().first?.status == .cancelled)
        #expect(try await store.spoolChunk(transferID: "t3", phase: 1, chunk: 0) == nil)
    }
}
