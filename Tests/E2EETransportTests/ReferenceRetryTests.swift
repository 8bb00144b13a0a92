import E2EEDevServer
import E2EEMessaging
import E2EETransport
import Testing

/// The pauses a session asked for.
actor PauseLog {
    private(set) var pauses: [Duration] = []
    func record(_ value: Duration) { pauses.append(value) }
}

extension TransportTests {
    /// docs/spec/server-api.md §1: a rotated refresh token refused right after its rotation, and a
    /// keep-alive connection closed unanswered.
    @Suite("Reference server retries")
    struct ReferenceRetryTests {
        /// A client whose refresh pauses advance the server's manual clock (so the lag ends).
        private func client(_ harness: TransportHarness, clock: DevServerClock, log: PauseLog, window: Duration = .seconds(10)) -> HTTPChatServer {
            let retry = AuthSession.RefreshRetry(window: window, pause: .milliseconds(500)) { pause in
                await log.record(pause)
                clock.advance(by: pause)
            }
            let session = AuthSession(keyStore: nil, serverURL: harness.server.baseURL, refreshRetry: retry)
            return HTTPChatServer(baseURL: harness.server.baseURL, session: session)
        }

        private func quirks(lag: Bool, closeAfterLag: Bool) -> DevServerQuirks {
            var quirks = DevServerQuirks.none
            quirks.refreshTokenCommitLag = lag
            quirks.closeConnectionAfterCommitLag = closeAfterLag
            return quirks
        }

        /// Registers, then makes two calls that each need a refresh; the second refresh uses the
        /// token the first one rotated in, at once.
        private func twoRefreshes(_ harness: TransportHarness, _ alice: HTTPChatServer, clock: DevServerClock) async throws {
            _ = try await alice.register(username: "alice", password: "password123", deviceName: "phone")
            await harness.server.expireAccessTokens()
            clock.advance(by: .seconds(1))
            #expect(try await alice.channels().isEmpty)
            await harness.server.expireAccessTokens()
            clock.advance(by: .milliseconds(1))    // tokens issued from now on are past the cut-off
            #expect(try await alice.channels().isEmpty)
        }

        @Test func aRefreshRefusedRightAfterARotationIsRetriedOnceAfterAPause() async throws {
            let clock = DevServerClock.manual()
            try await TransportHarness.with(.testing(quirks: quirks(lag: true, closeAfterLag: false), clock: clock)) { harness in
                let log = PauseLog()
                let alice = client(harness, clock: clock, log: log)
                try await twoRefreshes(harness, alice, clock: clock)
                #expect(await log.pauses == [.milliseconds(500)])
                #expect(await alice.session.refreshCount == 2)
                #expect(await alice.session.outcome == .active)
            }
        }

        @Test func withoutTheLagNoPauseIsTaken() async throws {
            let clock = DevServerClock.manual()
            try await TransportHarness.with(.testing(clock: clock)) { harness in
                let log = PauseLog()
                let alice = client(harness, clock: clock, log: log)
                try await twoRefreshes(harness, alice, clock: clock)
                #expect(await log.pauses.isEmpty)
            }
        }

        @Test func aRefusedRefreshThatFollowsNoRecentRefreshEndsTheSession() async throws {
            let clock = DevServerClock.manual()
            try await TransportHarness.with(.testing(quirks: quirks(lag: true, closeAfterLag: false), clock: clock)) { harness in
                let log = PauseLog()
                // A zero window: the second refresh does not count as "right after" the first.
                let alice = client(harness, clock: clock, log: log, window: .zero)
                _ = try await alice.register(username: "alice", password: "password123", deviceName: "phone")
                await harness.server.expireAccessTokens()
                clock.advance(by: .seconds(1))
                #expect(try await alice.channels().isEmpty)
                await harness.server.expireAccessTokens()
                clock.advance(by: .milliseconds(1))
                await expectServerError(.sessionEnded) { try await alice.channels() }
                #expect(await log.pauses.isEmpty)
            }
        }

        @Test func theReferenceChainLagThenDroppedConnectionIsRidden() async throws {
            // The refused refresh poisons its keep-alive connection: the retried refresh is
            // closed unanswered there, and sent once more on another connection.
            let clock = DevServerClock.manual()
            try await TransportHarness.with(.testing(quirks: quirks(lag: true, closeAfterLag: true), clock: clock)) { harness in
                let log = PauseLog()
                let alice = client(harness, clock: clock, log: log)
                try await twoRefreshes(harness, alice, clock: clock)
                #expect(await log.pauses == [.milliseconds(500)])
                #expect(await harness.server.faults.droppedRequestCount == 1)
                #expect(await alice.session.outcome == .active)
            }
        }

        @Test func anIdempotentRequestClosedUnansweredIsSentOnceMore() async throws {
            try await TransportHarness.with { harness in
                let (alice, _) = try await harness.registered("alice")
                _ = try await alice.createChannel(name: "g")
                await harness.server.faults.dropNextRequests(1)
                #expect(try await alice.channels().count == 1)
                #expect(await harness.server.faults.droppedRequestCount == 1)
                await harness.server.faults.dropNextRequests(1)
                #expect(try await alice.webSocketTicket().isEmpty == false, "ws-ticket is a POST that is safe to repeat")
                await harness.server.faults.dropNextRequests(2)
                let kind = await errorKind { try await alice.channels() }
                #expect(kind == "transport", "only once")
                #expect(await harness.server.faults.droppedRequestCount == 4)
            }
        }

        @Test func aMessagePostClosedUnansweredIsNotRepeated() async throws {
            try await TransportHarness.with { harness in
                let (alice, _) = try await harness.registered("alice")
                let channel = try await alice.createChannel(name: "g")
                await harness.server.faults.dropNextRequests(1)
                guard case .transport(let text)? = await Self.serverError({ try await alice.sendMessage(channelID: channel.id, OutgoingMessage(content: "once")) }) else {
                    Issue.record("expected a transport error")
                    return
                }
                #expect(text.hasSuffix("(closed unanswered)"))
                #expect(await harness.server.faults.droppedRequestCount == 1)
                // Not repeated (a repeat would have gone through): the outbox reconciles instead.
                #expect(try await alice.messages(channelID: channel.id, before: nil, limit: 10).messages.isEmpty)
            }
        }

        private static func serverError<T>(_ body: () async throws -> T) async -> ServerError? {
            do {
                _ = try await body()
                return nil
            } catch {
                return error as? ServerError
            }
        }
    }
}
