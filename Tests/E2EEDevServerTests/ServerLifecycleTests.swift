import E2EEDevServer
import Foundation
import Testing

extension DevServerTests {
    @Suite("DevServer lifecycle")
    struct ServerLifecycleTests {
        @Test func bindsAFreePortAndRefusesATakenOne() async throws {
            let first = try await DevServer.start(configuration: .testing())
            #expect(first.port > 0)
            #expect(first.baseURL == "http://127.0.0.1:\(first.port)")
            var taken = DevServerConfiguration.testing()
            taken.port = first.port
            await #expect(throws: DevServerError.failedToBind(host: "127.0.0.1", port: first.port)) {
                let second = try await DevServer.start(configuration: taken)
                await second.shutdown()
            }
            await first.shutdown()
        }

        @Test func shutdownReturnsWithAnOpenSocket() async throws {
            let server = try await DevServer.start(configuration: .testing())
            let harness = Harness(server: server)
            let alice = try await harness.register("alice")
            let socket = try await harness.connect(alice)
            await server.shutdown()
            #expect(await socket.waitClosed(), "the socket ends with the server")
        }

        @Test func fileDatabaseKeepsStateAcrossRestarts() async throws {
            let path = FileManager.default.temporaryDirectory.appendingPathComponent("devserver-\(UUID().uuidString).sqlite").path
            defer { try? FileManager.default.removeItem(atPath: path) }
            var configuration = DevServerConfiguration.testing()
            configuration.databasePath = path
            let alice = try await Harness.with(configuration) { harness in try await harness.register("alice") }
            try await Harness.with(configuration) { harness in
                let again = try await harness.login("alice")
                #expect(again.userID == alice.userID)
                #expect(try await harness.call(.POST, "/api/v1/auth/refresh", json: .object(["refresh_token": .string(alice.refreshToken)])).status == 200)
            }
        }

        @Test func concurrentRefreshesWithOneTokenLeaveOneWinner() async throws {
            try await Harness.with { harness in
                let alice = try await harness.register("alice")
                let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
                    for _ in 0..<4 {
                        group.addTask {
                            try await harness.call(.POST, "/api/v1/auth/refresh", json: .object(["refresh_token": .string(alice.refreshToken)])).status
                        }
                    }
                    return try await group.reduce(into: [Int]()) { $0.append($1) }
                }
                #expect(statuses.sorted() == [200, 401, 401, 401])
            }
        }
    }
}
