import E2EECrypto
@_spi(StoreInternals) import E2EEKeyStore
@testable import E2EEMessaging
import Foundation
import Testing

/// docs/spec/sync.md guarantee 9 at the unit level: only a message absent from two reads far enough
/// apart, inside the range each read covered contiguously, is inferred deleted.
@Suite("Delete inference (guarantee 9)")
struct DeleteInferenceTests {
    private let channel = "c0ffee00-0000-4000-8000-000000000009"

    private final class Clock: @unchecked Sendable {
        private let lock = NSLock()
        private var micros: Int64 = 1_000_000_000
        var now: StoreTime { lock.withLock { StoreTime(microseconds: micros) } }
        func advance(_ delta: Int64) { lock.withLock { micros += delta } }
    }

    private func message(_ id: String, at micros: Int64) -> ServerMessage {
        ServerMessage(id: MessageID(id), channelID: ChannelID(channel), senderID: "user-b", senderDeviceID: "device-b", content: "x", contentType: "text",
                      protocolVersion: 1, replyToID: nil, editedAt: nil, createdAt: ServerTimestamp(microseconds: micros))
    }

    /// A store holding m1…m4 at 10, 20, 30, 40 µs.
    private func store() async throws -> KeyStore {
        let store = try KeyStore.inMemory()
        try await store.write { [store] db in
            for (index, id) in ["m1", "m2", "m3", "m4"].enumerated() {
                try store.timelineStore.storeMessage(TimelineMessage(
                    messageID: id, channelID: channel, senderUserID: "user-b", senderDeviceID: "device-b",
                    createdAt: StoreTime(microseconds: Int64(index + 1) * 10), contentHash: SHA256.hash(Array(id.utf8)), state: .decrypted,
                    plaintext: SecretBytes(copying: Array(id.utf8)), isOwn: false), db)
            }
        }
        return store
    }

    @Test("absent twice, two seconds apart: deleted; absent once: only a candidate")
    func confirmedBySecondRead() async throws {
        let (clock, store) = (Clock(), try await store())
        let inference = DeleteInference(now: { clock.now })
        let read = [message("m1", at: 10), message("m3", at: 30), message("m4", at: 40)]
        #expect(try await inference.confirmedDeletes(channelID: ChannelID(channel), read: read, store: store).isEmpty)
        clock.advance(1_000_000)
        #expect(try await inference.confirmedDeletes(channelID: ChannelID(channel), read: read, store: store).isEmpty, "too soon")
        clock.advance(1_000_000)
        #expect(try await inference.confirmedDeletes(channelID: ChannelID(channel), read: read, store: store) == ["m2"])
    }

    @Test("a row briefly missing that shows up again is never deleted; a new absence waits again")
    func reappearanceIsForgotten() async throws {
        let (clock, store) = (Clock(), try await store())
        let inference = DeleteInference(now: { clock.now })
        let without = [message("m1", at: 10), message("m3", at: 30), message("m4", at: 40)]
        let with = [message("m1", at: 10), message("m2", at: 20), message("m3", at: 30), message("m4", at: 40)]
        #expect(try await inference.confirmedDeletes(channelID: ChannelID(channel), read: without, store: store).isEmpty)
        clock.advance(3_000_000)
        #expect(try await inference.confirmedDeletes(channelID: ChannelID(channel), read: with, store: store).isEmpty)
        clock.advance(3_000_000)
        #expect(try await inference.confirmedDeletes(channelID: ChannelID(channel), read: without, store: store).isEmpty)
    }

    @Test("only the range read contiguously counts: older, tied-with-oldest and newer rows are not judged")
    func outsideTheReadRangeIsNotJudged() async throws {
        let (clock, store) = (Clock(), try await store())
        let inference = DeleteInference(now: { clock.now })
        let partial = [message("m2", at: 20), message("m3", at: 30)]  // m1 older, m4 newer than the read
        for _ in 0..<3 {
            #expect(try await inference.confirmedDeletes(channelID: ChannelID(channel), read: partial, store: store).isEmpty)
            clock.advance(3_000_000)
        }
    }
}
