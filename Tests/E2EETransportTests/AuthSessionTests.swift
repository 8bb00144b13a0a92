import E2EEDevServer
import E2EEKeyStore
import E2EEMessaging
import E2EETransport
import Testing

extension TransportTests {
    @Suite("Auth session")
    struct AuthSessionTests {
        private func storedRefreshToken(_ store: KeyStore) async throws -> String? {
            try await store.loadAccount()?.refreshToken.map { String(decoding: $0.unprotectedCopy(), as: UTF8.self) }
        }

        @Test func expiredAccessTokenRefreshesOnceAndRetries() async throws {
            try await TransportHarness.with { harness in
                let store = try KeyStore.inMemory()
                let (alice, tokens) = try await harness.registered("alice", keyStore: store)
                #expect(try await storedRefreshToken(store) == tokens.refreshToken)
                await harness.server.expireAccessTokens()
                #expect(try await alice.channels().isEmpty)
                #expect(await alice.session.refreshCount == 1)
                let rotated = try #require(try await storedRefreshToken(store))
                #expect(rotated != tokens.refreshToken)
                let restored = try await AuthSession.restored(from: store)
                #expect(await restored.isLoggedIn)
            }
        }

        @Test func concurrentUnauthorizedCallsShareOneRefresh() async throws {
            try await TransportHarness.with { harness in
                let (alice, _) = try await harness.registered("alice")
                _ = try await alice.createChannel(name: "g")
                await harness.server.expireAccessTokens()
                async let first = alice.channels()
                async let second = alice.currentUser()
                async let third = alice.channels()
                let results = try await (first.count, second.username, third.count)
                #expect(results == (1, "alice", 1))
                #expect(await alice.session.refreshCount == 1)
                #expect(await alice.session.outcome == .active)
            }
        }

        @Test func refusedRefreshEndsTheSessionCleanly() async throws {
            try await TransportHarness.with { harness in
                let store = try KeyStore.inMemory()
                let (alice, tokens) = try await harness.registered("alice", keyStore: store)
                // Another client rotates the refresh token: ours is now dead.
                let thief = harness.client()
                _ = try await thief.login(username: "alice", password: "password123", deviceName: "other")
                try await thief.logoutAll()
                await harness.server.expireAccessTokens()
                await expectServerError(.sessionEnded) { try await alice.channels() }
                #expect(await alice.session.outcome == .ended)
                #expect(await alice.session.isLoggedIn == false)
                let account = try #require(try await store.loadAccount())
                #expect(account.refreshToken == nil && account.accessToken == nil)
                #expect(account.deviceID == tokens.deviceID.rawValue)
                await expectServerError(.sessionEnded) { try await alice.channels() }
            }
        }

        @Test func rateLimitWaitsRetryAfterThenRetriesOnce() async throws {
            let clock = DevServerClock.manual()
            var configuration = DevServerConfiguration.testing(clock: clock)
            configuration.rateLimit = .init(requests: 3, window: .seconds(10), retryAfter: .seconds(10))
            try await TransportHarness.with(configuration) { harness in
                let waits = WaitLog()
                let alice = harness.client(sleep: { wait in
                    await waits.record(wait)
                    clock.advance(by: wait)
                })
                _ = try await alice.register(username: "alice", password: "password123", deviceName: "p")
                _ = try await alice.channels()
                _ = try await alice.channels()
                #expect(try await alice.channels().isEmpty)
                #expect(await waits.waits == [.seconds(10)])
                let impatient = harness.client(sleep: { _ in })
                for _ in 0..<2 { _ = try? await impatient.login(username: "alice", password: "password123", deviceName: "q") }
                #expect(await errorKind { try await impatient.login(username: "alice", password: "password123", deviceName: "q") } == "rateLimited")
            }
        }
    }
}

/// The waits a client asked for.
actor WaitLog {
    private(set) var waits: [Duration] = []
    func record(_ value: Duration) { waits.append(value) }
}
