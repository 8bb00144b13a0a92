import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension ToolTests {
    /// `history` and `listen` run as processes against the development server: what one store
    /// sends, the other reads — from the store after a catch-up, or live across a dropped socket.
    @Suite("receiving")
    struct ReceivingCommandTests {
        @Test("history after a send between two stores: the message decrypted, as text and JSON; the sender sees its own; an unknown channel exits 6")
        func historyShowsTheMessage() async throws {
            try await ToolHarness.with { harness in
                let (alice, bob, dm) = try await harness.pair()
                let send = try await harness.tool("send", dm, "hello bob\nsecond line", "--store", alice.store)
                #expect(send.status == 0, "\(send.summary)")

                let json = try await harness.tool("history", dm, "--store", bob.store, "--json")
                #expect(json.status == 0, "\(json.summary)")
                let items = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [[String: Any]], "\(json.summary)")
                #expect(items.count == 1)
                #expect(items.first?["text"] as? String == "hello bob\nsecond line")
                #expect(items.first?["state"] as? String == "decrypted")
                #expect(items.first?["sender_user_id"] as? String == alice.userID)
                #expect(items.first?["sender_device_id"] as? String == alice.deviceID)
                #expect(items.first?["own"] as? Bool == false)
                #expect(items.first?["channel_id"] as? String == dm)

                let text = try await harness.tool("history", dm, "--store", bob.store)
                #expect(text.status == 0, "\(text.summary)")
                let lines = text.stdout.split(separator: "\n")
                #expect(lines.count == 1, "one line per message: \(text.summary)")
                #expect(lines.first?.hasSuffix("\(alice.userID)/\(alice.deviceID)  hello bob\\nsecond line") == true, "\(text.summary)")

                let own = try await harness.tool("history", dm, "--store", alice.store, "--json")
                #expect(own.status == 0, "\(own.summary)")
                let ownItems = try #require(try JSONSerialization.jsonObject(with: Data(own.stdout.utf8)) as? [[String: Any]])
                #expect(ownItems.map { $0["own"] as? Bool } == [true])
                #expect(ownItems.first?["text"] as? String == "hello bob\nsecond line")

                let unknown = try await harness.tool("history", UUID().uuidString, "--store", bob.store)
                #expect(unknown.status == 6, "\(unknown.summary)")
                let garbage = try await harness.tool("history", "not-a-channel", "--store", bob.store, "--json")
                #expect(garbage.status == 6, "\(garbage.summary)")
                #expect(try garbage.json()["error"] != nil, "the failure as JSON: \(garbage.summary)")
            }
        }

        @Test("listen --json --count 3 in store B, started first; three sends from store A: B prints exactly those texts, in order, and exits 0")
        func listenPrintsWhatIsSent() async throws {
            try await ToolHarness.with { harness in
                let (alice, bob, dm) = try await harness.pair()
                let listener = try harness.start("listen", dm, "--store", bob.store, "--json", "--count", "3", "--timeout", "120", "--verbose")
                #expect(await listener.waitForConnection(), "\(listener.output.value.summary)")
                let texts = ["first", "second", "third"]
                for text in texts {
                    let send = try await harness.tool("send", dm, text, "--store", alice.store)
                    #expect(send.status == 0, "\(send.summary)")
                }
                let output = await listener.finish()
                #expect(output.exit?.status == 0 && output.exit?.bySignal == false, "\(output.summary)")
                #expect(output.messageTexts == texts, "\(output.summary)")
                #expect(output.objects.allSatisfy { $0["sender_device_id"] as? String == alice.deviceID && $0["channel_id"] as? String == dm })
                #expect(output.lines.count == output.objects.count, "every line is a JSON object")
            }
        }

        @Test("listen across a socket the server drops mid-stream: every message printed exactly once, in order; SIGTERM ends it with 0")
        func listenSurvivesADroppedSocket() async throws {
            try await ToolHarness.with { harness in
                let (alice, bob, dm) = try await harness.pair()
                let sender = try await harness.openInProcess(alice)
                let listener = try harness.start("listen", "--store", bob.store, "--json", "--verbose")
                do {
                    #expect(await listener.waitForConnection(), "\(listener.output.value.summary)")
                    let texts = (1...10).map { "message \($0)" }
                    try await sender.send(Array(texts[0..<4]), to: dm)
                    #expect(await listener.waitForMessages(4), "\(listener.output.value.summary)")

                    // The next frame the server sends B (message 5) drops B's socket.
                    await harness.server.faults.dropSockets(afterFrames: 1)
                    try await sender.send([texts[4]], to: dm)
                    #expect(await listener.waitForConnection("reconnecting (attempt 1)"), "\(listener.output.value.summary)")
                    await harness.server.faults.dropSockets(afterFrames: nil)
                    #expect(await listener.waitForConnection(times: 2), "\(listener.output.value.summary)")

                    try await sender.send(Array(texts[5...]), to: dm)
                    #expect(await listener.waitForMessages(10), "\(listener.output.value.summary)")
                    listener.send(signal: SIGTERM)
                    let output = await listener.finish()
                    #expect(output.exit?.status == 0 && output.exit?.bySignal == false, "a clean shutdown: \(output.summary)")
                    #expect(output.messageTexts == texts, "\(output.summary)")
                } catch {
                    listener.send(signal: SIGKILL)
                    await sender.close()
                    throw error
                }
                await sender.close()
            }
        }

        @Test("listen when the session ends (every refresh token revoked, access expired, socket closed): exit 5 with a JSON error")
        func listenEndsWithTheSession() async throws {
            try await ToolHarness.with { harness in
                let (_, bob, _) = try await harness.pair()
                let listener = try harness.start("listen", "--store", bob.store, "--json", "--verbose", "--timeout", "120")
                #expect(await listener.waitForConnection(), "\(listener.output.value.summary)")
                let elsewhere = try await harness.client(loggingInAs: "bob")
                try await elsewhere.logoutAll()
                await harness.server.expireAccessTokens()
                await harness.server.faults.closeSockets(ofUser: bob.userID, code: 1001, reason: nil)
                let output = await listener.finish()
                #expect(output.exit?.status == 5, "\(output.summary)")
                let error = output.objects.last?["error"] as? [String: Any]
                #expect(error?["name"] as? String == "authentication", "\(output.summary)")
            }
        }
    }
}
