@_spi(StoreInternals) import E2EEKeyStore
@_spi(Benchmarks) @testable import E2EEMessaging
import Testing

@Suite("Receive plan: the copies of one id")
struct ReceivePlanCopiesTests {
    private let channel = ReceivingChannel.group()

    private func copy(_ content: String, id: String, editedAt: Int64?) -> ServerMessage {
        ServerMessage(id: MessageID(id), channelID: channel.id, senderID: "user-b", senderDeviceID: "device-b", content: content, contentType: "text",
                      protocolVersion: 1, replyToID: nil, editedAt: editedAt.map { ServerTimestamp(microseconds: $0) },
                      createdAt: ServerTimestamp(microseconds: t(1)))
    }

    @Test("every new content is an edit once and a repeat is a duplicate, on both sides of the scan limit", arguments: [3, 16, 17, 40])
    func manyCopies(contents: Int) async throws {
        let store = try KeyStore.inMemory()
        let id = newID()
        // The unedited copy, then each content twice, arriving out of order.
        var copies = [copy("original", id: id, editedAt: nil)]
        for round in 0..<2 {
            for index in 0..<contents { copies.append(copy("content \(index)", id: id, editedAt: t(2, Int64(round * contents + index)))) }
        }
        copies.append(copy("original", id: id, editedAt: t(3)))
        let plan = try await ReceivePlan.make(copies.reversed(), channel: channel, store: store)
        #expect(plan.lanes.values.flatMap { $0 }.map(\.content) == ["original"])
        #expect(plan.edits.map(\.content) == (0..<contents).map { "content \($0)" })
        #expect(plan.outcomes.count == contents + 1)
        #expect(plan.outcomes.allSatisfy { $0.result == .duplicate(of: nil) })
    }

    @Test("the scanned list and the hashed set agree on what was inserted")
    func editedContents() {
        var edited = EditedContents()
        for index in 0..<(EditedContents.scanLimit * 2) {
            #expect(!edited.contains("c\(index)"))
            edited.insert("c\(index)")
            #expect((0...index).allSatisfy { edited.contains("c\($0)") })
        }
        #expect(!edited.contains("never"))
    }
}
