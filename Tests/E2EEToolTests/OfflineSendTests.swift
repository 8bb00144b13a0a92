import E2EEMessaging
import E2EEDevServer
import Foundation
import Testing

extension ToolTests {
    /// Issue 17 item 2, as processes: `send` while the server is down reports `queued` (exit
    /// 13), `outbox` lists what waits, and a later command of a new process on that store
    /// delivers it when the server is back — in order, exactly once.
    @Suite("sending while the server is down")
    struct OfflineSendTests {
        @Test("two sends while down exit 13 queued; after the server returns, history on the store delivers them in order, once")
        func sendsWhileDownAreDeliveredLater() async throws {
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("e2ee-tool-offline-\(UUID().uuidString)", isDirectory: true)
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: directory) }
            var configuration = DevServerConfiguration.testing()
            configuration.databasePath = directory.appendingPathComponent("server.sqlite").path
            let first = try await DevServer.start(configuration: configuration)
            configuration.port = first.port
            let before = ToolHarness(server: first, directory: directory)
            let (alice, bob, dm) = try await before.pair()
            let warmUp = try await before.tool("send", dm, "before", "--store", alice.store)
            #expect(warmUp.status == 0, "\(warmUp.summary)")
            await first.shutdown()

            var localIDs: [String] = []
            for text in ["one", "two"] {
                let send = try await before.tool("send", dm, text, "--store", alice.store, "--json")
                #expect(send.status == 13, "\(send.summary)")
                let json = try send.json()
                #expect(json["state"] as? String == "queued")
                localIDs.append(try #require(json["local_id"] as? String))
            }
            let listed = try await before.tool("outbox", "--store", alice.store, "--json")
            #expect(listed.status == 0, "\(listed.summary)")
            let entries = try #require(try JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [[String: Any]])
            #expect(entries.compactMap { $0["local_id"] as? String } == localIDs)
            #expect(entries.allSatisfy { $0["state"] as? String == "queued" })
            let text = try await before.tool("send", dm, "three", "--store", alice.store)
            #expect(text.status == 13, "\(text.summary)")
            #expect(text.stdout.hasPrefix("queued:"), "\(text.summary)")

            let second = try await DevServer.start(configuration: configuration)
            let after = ToolHarness(server: second, directory: directory)
            do {
                let delivering = try await after.tool("history", dm, "--store", alice.store, "--json")
                #expect(delivering.status == 0, "\(delivering.summary)")
                let empty = try await after.tool("outbox", "--store", alice.store, "--json")
                let left = try JSONSerialization.jsonObject(with: Data(empty.stdout.utf8)) as? [[String: Any]]
                #expect(left?.isEmpty == true, "\(empty.summary)")

                let reader = try await after.client(loggingInAs: "bob")
                let onServer = try await reader.messages(channelID: ChannelID(dm), before: nil, limit: 50).messages
                #expect(onServer.count == 4, "each message posted exactly once")
                let read = try await after.tool("history", dm, "--store", bob.store, "--json")
                #expect(read.status == 0, "\(read.summary)")
                let items = try #require(try JSONSerialization.jsonObject(with: Data(read.stdout.utf8)) as? [[String: Any]])
                #expect(items.compactMap { $0["text"] as? String } == ["before", "one", "two", "three"])
                #expect(items.allSatisfy { $0["sender_device_id"] as? String == alice.deviceID })
            } catch {
                await second.shutdown()
                throw error
            }
            await second.shutdown()
        }
    }
}
