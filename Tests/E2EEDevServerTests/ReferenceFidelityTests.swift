@testable import E2EEDevServer
import Testing

extension DevServerTests {
    /// The dev server behaves like the reference server by default (issue 17, docs/spec/server-api.md "Verified"
    /// 13 and 14): one conformance test per item the side-by-side comparison found.
    @Suite("DevServer reference fidelity")
    struct ReferenceFidelityTests {
        /// `created_at` in microseconds (the server's own parser: Foundation's keeps milliseconds).
        private static func micros(_ message: JSONValue) -> Int64? {
            message["created_at"]?.stringValue.flatMap(Timestamp.parse)
        }

        @Test func timestampsAreDistinctIncreasingAndNeverReuseAnOlderTime() async throws {
            let clock = DevServerClock.manual()
            var configuration = DevServerConfiguration.testing(quirks: .reference, clock: clock)
            configuration.quirks.commitDelay = .milliseconds(1)
            try await Harness.with(configuration) { harness in
                let alice = try await harness.register("alice")
                let channel = try await harness.createChannel(alice)
                var times: [Int64] = []
                for index in 0..<4 {
                    times.append(try #require(Self.micros(try await harness.send(alice, channel, "same instant \(index)"))))
                }
                let start = clock.nowMicros
                clock.advance(by: .seconds(256)) // the 08:40:11 → 08:44:27 of the issue
                let later = try #require(Self.micros(try await harness.send(alice, channel, "four minutes later")))
                #expect(zip(times, times.dropFirst()).allSatisfy { $0 < $1 }, "\(times)")
                #expect(later == start + 256_000_000, "a later message gets its own time, not an older one")
                let page = try await harness.call(.GET, "/api/v1/channels/\(channel)/messages", token: alice.accessToken)
                let order = page.json?["messages"]?.arrayValue?.compactMap { $0["content"]?.stringValue }
                #expect(order == (0..<4).map { "same instant \($0)" } + ["four minutes later"])
            }
        }

        @Test func tiedTimestampsAreAnOptInFault() {
            #expect(!DevServerQuirks.reference.tiedTimestamps)
            #expect(!DevServerQuirks().tiedTimestamps)
            #expect(!DevServerConfiguration().quirks.tiedTimestamps)
        }

        @Test func lowOTPFiresAtTenKeysWithRemainingOneLess() async throws {
            try await Harness.with(.testing(quirks: .reference)) { harness in
                let alice = try await harness.register("alice")
                let bob = try await harness.register("bob")
                let socket = try await harness.connect(alice)
                for (count, expected) in [(11, nil), (10, 9), (3, 2)] as [(Int, Int?)] {
                    let keys = (0..<count).map { "k\(count)-\($0)" }
                    _ = try await harness.call(.POST, "/api/v1/keys/upload", json: KeyRouteTests.bundle(alice.deviceID, oneTime: keys),
                                               token: alice.accessToken)
                    let bundle = try await harness.call(.GET, "/api/v1/keys/\(alice.deviceID)/bundle", token: bob.accessToken)
                    #expect(bundle.json?["one_time_pre_key_count"]?.intValue == count, "the fetch never shortens the list")
                    let event = await socket.next(type: "keys.low_otp", timeout: .milliseconds(expected == nil ? 300 : 5000))
                    #expect(event?["remaining"]?.intValue == expected, "list of \(count)")
                }
                await socket.close()
            }
        }

        @Test func channelNamesOver128CharactersAre422() async throws {
            try await Harness.with { harness in
                let alice = try await harness.register("alice")
                let longest = String(repeating: "n", count: 128)
                let created = try await harness.call(.POST, "/api/v1/channels", json: .object(["name": .string(longest)]), token: alice.accessToken)
                #expect(created.status == 201)
                let tooLong = try await harness.call(.POST, "/api/v1/channels", json: .object(["name": .string(longest + "n")]), token: alice.accessToken)
                #expect(tooLong.status == 422)
                #expect(tooLong.json?["detail"]?.arrayValue?.first?["loc"] == .array([.string("body"), .string("name")]))
                let id = try #require(created.json?["id"]?.stringValue)
                let renamed = try await harness.call(.PATCH, "/api/v1/channels/\(id)", json: .object(["name": .string(longest + "n")]),
                                                     token: alice.accessToken)
                #expect(renamed.status == 422)
                let list = try await harness.call(.GET, "/api/v1/channels", token: alice.accessToken)
                #expect(list.json?.arrayValue?.count == 1)
            }
        }

        @Test func missingBearerIs401WithWWWAuthenticate() async throws {
            try await Harness.with(.testing(quirks: .reference)) { harness in
                let response = try await harness.call(.GET, "/api/v1/channels")
                #expect(response.status == 401)
                #expect(response.headers["WWW-Authenticate"] == ["Bearer"])
                #expect(response.detail == "Not authenticated")
            }
        }

        @Test func refusedTicketIs403WithAnEmptyBody() async throws {
            try await Harness.with(.testing(quirks: .reference)) { harness in
                let refused = try await harness.handshake(ticket: "made-up")
                #expect(refused.status == 403)
                #expect(refused.text.isEmpty)
                let plain = try await harness.call(.GET, "/ws")
                #expect(plain.status == 403)
                #expect(plain.text.isEmpty)
            }
        }

        @Test func healthAnswersOK() async throws {
            try await Harness.with(.testing(quirks: .reference)) { harness in
                let health = try await harness.call(.GET, "/health")
                #expect(health.status == 200)
                #expect(health.json == .object(["status": .string("ok")]))
            }
        }
    }
}
