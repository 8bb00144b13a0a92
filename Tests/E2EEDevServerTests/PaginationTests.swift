@testable import E2EEDevServer
import Foundation
import Testing

extension DevServerTests {
    @Suite("DevServer pagination")
    struct PaginationTests {
        private func tiedConfiguration() -> DevServerConfiguration {
            var quirks = DevServerQuirks.none
            quirks.tiedTimestamps = true
            quirks.tieRunLength = 3
            return .testing(quirks: quirks, clock: .manual())
        }

        private func page(_ harness: Harness, _ user: TestUser, _ channel: String, before: String? = nil, limit: Int? = nil) async throws -> (ids: [String], times: [String], hasMore: Bool) {
            var query: [String] = []
            if let before { query.append("before=" + (before.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? before)) }
            if let limit { query.append("limit=\(limit)") }
            let response = try await harness.call(.GET, "/api/v1/channels/\(channel)/messages" + (query.isEmpty ? "" : "?" + query.joined(separator: "&")), token: user.accessToken)
            guard response.status == 200, let messages = response.json?["messages"]?.arrayValue, let hasMore = response.json?["has_more"]?.boolValue
            else { throw HarnessError.unexpected(response.status, response.text) }
            return (messages.compactMap { $0["id"]?.stringValue }, messages.compactMap { $0["created_at"]?.stringValue }, hasMore)
        }

        @Test func pagesRunOldestToNewestWithHasMore() async throws {
            try await Harness.with(.testing(clock: .manual())) { harness in
                let alice = try await harness.register("alice")
                let channel = try await harness.createChannel(alice)
                var sent: [String] = []
                for index in 0..<5 {
                    harness.server.clock.advance(by: .milliseconds(1))
                    sent.append(try #require(try await harness.send(alice, channel, "m\(index)")["id"]?.stringValue))
                }
                let newest = try await page(harness, alice, channel, limit: 2)
                #expect(newest.ids == Array(sent[3...]))
                #expect(newest.hasMore)
                let older = try await page(harness, alice, channel, before: newest.times.first, limit: 2)
                #expect(older.ids == Array(sent[1...2]))
                let oldest = try await page(harness, alice, channel, before: older.times.first, limit: 2)
                #expect(oldest.ids == [sent[0]])
                #expect(!oldest.hasMore)
                let all = try await page(harness, alice, channel)
                #expect(all.ids == sent)
                #expect(!all.hasMore)
            }
        }

        @Test func limitRules() async throws {
            try await Harness.with { harness in
                let alice = try await harness.register("alice")
                let channel = try await harness.createChannel(alice)
                for index in 0..<55 { _ = try await harness.send(alice, channel, "m\(index)") }
                let byDefault = try await page(harness, alice, channel)
                #expect(byDefault.ids.count == 50)
                #expect(byDefault.hasMore)
                let hundred = try await page(harness, alice, channel, limit: 100)
                #expect(hundred.ids.count == 55)
                let path = "/api/v1/channels/\(channel)/messages"
                #expect(try await harness.call(.GET, path + "?limit=101", token: alice.accessToken).status == 422)
                #expect(try await harness.call(.GET, path + "?limit=-1", token: alice.accessToken).status == 422)
                #expect(try await harness.call(.GET, path + "?limit=ten", token: alice.accessToken).status == 422)
                let zero = try await harness.call(.GET, path + "?limit=0", token: alice.accessToken)
                #expect(zero.json == .object(["messages": .array([]), "has_more": .bool(true)]))
            }
        }

        @Test func beforeMustBeAValidAndEncodedTimestamp() async throws {
            try await Harness.with { harness in
                let alice = try await harness.register("alice")
                let channel = try await harness.createChannel(alice)
                _ = try await harness.send(alice, channel, "m")
                let path = "/api/v1/channels/\(channel)/messages?before="
                #expect(try await harness.call(.GET, path + "yesterday", token: alice.accessToken).status == 422)
                // A raw `+` is a space once decoded: 422, as on the reference server.
                #expect(try await harness.call(.GET, path + "2100-01-01T00:00:00.123456+00:00", token: alice.accessToken).status == 422)
                let encoded = try await harness.call(.GET, path + "2100-01-01T00:00:00.123456%2B00:00", token: alice.accessToken)
                #expect(encoded.status == 200)
                #expect(encoded.json?["messages"]?.arrayValue?.count == 1)
                #expect(try await harness.call(.GET, path + "2100-01-01T00:00:00Z", token: alice.accessToken).status == 200)
            }
        }

        @Test func strictBeforeSkipsRowsTiedAtTheBoundary() async throws {
            try await Harness.with(tiedConfiguration()) { harness in
                let alice = try await harness.register("alice")
                let channel = try await harness.createChannel(alice)
                var sent: [String] = []
                for index in 0..<10 { sent.append(try #require(try await harness.send(alice, channel, "m\(index)")["id"]?.stringValue)) }
                // Times run in ties of three: m0–m2, m3–m5, m6–m8, m9.
                var seen: [String] = []
                var before: String?
                var hasMore = true
                while hasMore {
                    let result = try await page(harness, alice, channel, before: before, limit: 2)
                    seen += result.ids
                    before = result.times.first
                    hasMore = result.hasMore && before != nil
                }
                #expect(Set(seen).count < sent.count, "paging with the oldest created_at as `before` skips tied rows")
            }
        }

        @Test func overlappingTheBoundaryNeverSkipsTiedRows() async throws {
            try await Harness.with(tiedConfiguration()) { harness in
                let alice = try await harness.register("alice")
                let channel = try await harness.createChannel(alice)
                var sent: [String] = []
                for index in 0..<10 { sent.append(try #require(try await harness.send(alice, channel, "m\(index)")["id"]?.stringValue)) }
                // The client strategy of docs/spec/server-api.md: re-request just after the boundary, dedupe, and widen
                // the page when it brings nothing new.
                var seen = Set<String>()
                var before: String?
                var limit = 2
                for _ in 0..<50 {
                    let result = try await page(harness, alice, channel, before: before, limit: limit)
                    let fresh = Set(result.ids).subtracting(seen)
                    seen.formUnion(result.ids)
                    guard result.hasMore, let oldest = result.times.first, let micros = Timestamp.parse(oldest) else { break }
                    if fresh.isEmpty { limit = min(limit * 2, 100) }
                    before = Timestamp.format(micros + 1, suffix: .zulu)
                }
                #expect(seen == Set(sent))
            }
        }

        @Test func tiedTimestampQuirkOffGivesDistinctTimes() async throws {
            try await Harness.with(.testing(clock: .manual())) { harness in
                let alice = try await harness.register("alice")
                let channel = try await harness.createChannel(alice)
                var times: [String] = []
                for index in 0..<4 { times.append(try #require(try await harness.send(alice, channel, "m\(index)")["created_at"]?.stringValue)) }
                #expect(Set(times).count == 4)
                let micros = times.compactMap(Timestamp.parse)
                #expect(micros == micros.sorted())
            }
            try await Harness.with(tiedConfiguration()) { harness in
                let alice = try await harness.register("alice")
                let channel = try await harness.createChannel(alice)
                var times: [String] = []
                for index in 0..<4 { times.append(try #require(try await harness.send(alice, channel, "m\(index)")["created_at"]?.stringValue)) }
                #expect(times[0] == times[1] && times[1] == times[2])
                #expect(times[3] != times[2])
            }
        }
    }
}
