import E2EECrypto
@_spi(StoreInternals) import E2EEKeyStore
@_spi(Benchmarks) @testable import E2EEMessaging
import Foundation
import Testing

@Suite("Receive: nothing missed, nothing twice, ordered")
struct DedupeAndOrderTests {
    @Test("guarantee 1: copies across batches and across a restart are shown exactly once")
    func dedupeAcrossBatchesAndRestart() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("receive-\(newID())", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("store.sqlite")
        let key = StoreKey.random()
        let clock = TestClock()
        let listed = FakeListedIdentities()

        let firstStore = try KeyStore.open(at: url, key: key)
        let h = try await ReceiveHarness.make(store: firstStore, listed: listed, clock: clock)
        let peer = try h.connectedPeer()
        let channel = ReceivingChannel.group()
        let skd = try peer.skd(channel: channel.id.rawValue, to: [h.deviceID], at: t(0))
        let m = try (0..<5).map { try peer.group("m\($0)", channel: channel.id.rawValue, at: t(Int64($0 + 1))) }
        _ = try await h.ingest([skd, m[0], m[1], m[2]], channel)
        let second = try await h.pipeline.ingest([m[1], m[2], m[3], m[3]], channel: channel)
        #expect(second.count == 4)
        #expect(second.filter { $0.result == .duplicate(of: nil) }.map(\.messageID).sorted() == [m[1].id, m[2].id, m[3].id].sorted())
        #expect(second.filter { $0.result == .decrypted }.map(\.messageID) == [m[3].id])
        try firstStore.close()

        let reopened = try KeyStore.open(at: url, key: key)
        let restarted = try await ReceiveHarness.make(store: reopened, account: h.account, listed: listed, clock: clock)
        let outcomes = try await restarted.pipeline.ingest([skd, m[0], m[3], m[4]], channel: channel)
        #expect(outcomes.filter { $0.result == .duplicate(of: nil) }.map(\.messageID).sorted() == [skd.id, m[0].id, m[3].id].sorted())
        #expect(outcomes.first { $0.messageID == m[4].id }?.result == .decrypted)
        #expect(try await restarted.timeline(channel).map(\.text) == ["m0", "m1", "m2", "m3", "m4"])
        try reopened.close()
    }

    @Test("§6: the same envelope bytes under another server id are shown once, linked to the first")
    func sameBytesLinkedToFirst() async throws {
        let h = try await ReceiveHarness.make()
        let peer = try h.connectedPeer()
        let channel = ReceivingChannel.dm()
        let first = try peer.dm("only once", channel: channel.id.rawValue, to: [h.deviceID], at: t(1))
        let copy = peer.posted(first.content, kind: .dm, channel: channel.id.rawValue, at: t(2))
        let outcomes = try await h.ingest([copy, first], channel)
        #expect(outcomes[first.id] == .decrypted)
        #expect(outcomes[copy.id] == .duplicate(of: first.id.rawValue))
        #expect(try await h.timeline(channel).map(\.messageID) == [first.id])
        #expect(try await h.store.receivedMessage(id: copy.id.rawValue)?.facts == ReceivedFacts(kind: .duplicate, duplicateOf: first.id.rawValue))
    }

    @Test("§6: a reused (sender user, payload id) with other bytes is a duplicate of the first, whose content stays")
    func payloadIDReuse() async throws {
        let h = try await ReceiveHarness.make()
        let peer = try h.connectedPeer()
        let channel = ReceivingChannel.group()
        _ = try await h.ingest([try peer.skd(channel: channel.id.rawValue, to: [h.deviceID], at: t(0))], channel)
        let payloadID = try WireUUID(text: newID())
        let original = peer.posted(Envelope.group(try peer.groupEnvelope(try peer.payload("original", id: payloadID), channel: channel.id.rawValue)).content(),
                                   kind: .group, channel: channel.id.rawValue, at: t(1))
        let reuse = peer.posted(Envelope.group(try peer.groupEnvelope(try peer.payload("imposter text", id: payloadID), channel: channel.id.rawValue)).content(),
                                kind: .group, channel: channel.id.rawValue, at: t(2))
        #expect(try await h.ingest([original], channel)[original.id] == .decrypted)
        #expect(try await h.ingest([reuse], channel)[reuse.id] == .duplicate(of: original.id.rawValue))
        #expect(try await h.timeline(channel).map(\.text) == ["original"])
        #expect(try await h.store.receivedMessage(id: reuse.id.rawValue)?.message.plaintext == nil)
    }

    @Test("guarantee 2: the timeline is ordered by (created_at, id), ties included; a late arrival lands in place")
    func orderedTimeline() async throws {
        let h = try await ReceiveHarness.make()
        let peer = try h.connectedPeer()
        let channel = ReceivingChannel.group()
        _ = try await h.ingest([try peer.skd(channel: channel.id.rawValue, to: [h.deviceID], at: t(0))], channel)
        let ids = (0..<3).map { _ in newID() }.sorted()
        let a = try peer.group("a", channel: channel.id.rawValue, at: t(1))
        let tieLow = try peer.group("tie-low", channel: channel.id.rawValue, at: t(2), id: ids[0])
        let tieHigh = try peer.group("tie-high", channel: channel.id.rawValue, at: t(2), id: ids[2])
        let c = try peer.group("c", channel: channel.id.rawValue, at: t(3))
        _ = try await h.ingest([c, tieHigh], channel)
        #expect(try await h.timeline(channel).map(\.text) == ["tie-high", "c"])
        _ = try await h.ingest([tieLow, a], channel)
        #expect(try await h.timeline(channel).map(\.text) == ["a", "tie-low", "tie-high", "c"])
        let page = try await h.reader.page(channelID: channel.id, before: TimelinePosition(createdAt: ServerTimestamp(microseconds: t(2)), messageID: MessageID(ids[2])), limit: 10)
        #expect(page.map(\.text) == ["a", "tie-low"])
    }

    @Test("§6 in one batch: a copy is a duplicate of the first, unless the first was refused for its metadata")
    func sameBatchCopies() async throws {
        let h = try await ReceiveHarness.make()
        let peer = try h.connectedPeer()
        let channel = ReceivingChannel.group()
        _ = try await h.ingest([try peer.skd(channel: channel.id.rawValue, to: [h.deviceID], at: t(0))], channel)
        let genuine = try peer.group("real", channel: channel.id.rawValue, at: t(2))
        let copy = peer.posted(genuine.content, kind: .group, channel: channel.id.rawValue, at: t(3))
        let forged = peer.posted(genuine.content, kind: .group, channel: channel.id.rawValue, at: t(1), senderDeviceID: newID())
        let outcomes = try await h.ingest([copy, genuine, forged], channel)
        #expect(outcomes[forged.id] == .undecryptable(.senderMismatch))
        #expect(outcomes[genuine.id] == .decrypted)
        #expect(outcomes[copy.id] == .duplicate(of: genuine.id.rawValue))
        #expect(try await h.timeline(channel).map(\.text) == [nil, "real"])
        #expect(try await h.store.receivedMessage(id: copy.id.rawValue)?.facts == ReceivedFacts(kind: .duplicate, duplicateOf: genuine.id.rawValue))
    }
}
