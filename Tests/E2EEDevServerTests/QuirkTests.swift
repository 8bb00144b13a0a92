import E2EEDevServer
import Foundation
import Testing

extension DevServerTests {
    @Suite("DevServer quirk switches")
    struct QuirkTests {
        @Test(arguments: [true, false])
        func publishBeforeCommit(on: Bool) async throws {
            var quirks = DevServerQuirks.none
            quirks.publishBeforeCommit = on
            quirks.commitDelay = .milliseconds(500)
            try await Harness.with(.testing(quirks: quirks)) { harness in
                let alice = try await harness.register("alice")
                let channel = try await harness.createChannel(alice)
                let socket = try await harness.connect(alice)
                let post = Task { try await harness.send(alice, channel, "racy") }
                let event = try #require(await socket.next(type: "message.new"))
                let id = try #require(event["message"]?["id"]?.stringValue)
                let early = try await harness.call(.GET, "/api/v1/channels/\(channel)/messages", token: alice.accessToken)
                let earlyIDs = early.json?["messages"]?.arrayValue?.compactMap { $0["id"]?.stringValue } ?? []
                #expect(earlyIDs.contains(id) == !on, "with the quirk the event comes before the row is readable")
                _ = try await post.value
                let late = try await harness.call(.GET, "/api/v1/channels/\(channel)/messages", token: alice.accessToken)
                #expect(late.json?["messages"]?.arrayValue?.compactMap { $0["id"]?.stringValue } == [id])
                await socket.close()
            }
        }

        @Test func referenceAndNoneDifferInEverySwitch() {
            let reference = DevServerQuirks.reference
            let none = DevServerQuirks.none
            #expect(reference.oneTimePreKeyNeverPopped && !none.oneTimePreKeyNeverPopped)
            #expect(reference.publishBeforeCommit && !none.publishBeforeCommit)
            #expect(reference.lateSubscribeAfterConnect && !none.lateSubscribeAfterConnect)
            #expect(reference.noAutoSubscribeToLaterChannels && !none.noAutoSubscribeToLaterChannels)
            #expect(reference.socketTimestampsWithOffset && !none.socketTimestampsWithOffset)
            #expect(!reference.tiedTimestamps && !none.tiedTimestamps) // an opt-in fault, not a reference quirk
            #expect(reference.refreshTokenCommitLag && !none.refreshTokenCommitLag)
            #expect(reference.closeConnectionAfterCommitLag && !none.closeConnectionAfterCommitLag)
        }
    }
}
