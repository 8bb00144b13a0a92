import E2EEMessaging
import E2EETransport
import Foundation
import NIOCore
import Testing

/// Issue 16, item 7: a server that drips its answer one byte at a time cannot hold a request
/// past its overall deadline (the read timeout alone restarts with every byte).
@Suite struct RequestDeadlineTests {
    @Test func whenTheBodyDrips_thenTheRequestEndsAtItsDeadlineWithATransportError() async throws {
        let drip = try DripServer(dripEvery: 0.2)
        defer { drip.stop() }
        let client = HTTPChatServer(baseURL: drip.baseURL, session: AuthSession(keyStore: nil, serverURL: drip.baseURL),
                                    timeout: .seconds(2), sleep: { _ in })
        let started = Date()
        do {
            _ = try await client.register(username: "dripped", password: "password123", deviceName: "phone")
            Issue.record("a dripping answer of 100,000 bytes cannot complete")
        } catch let error as ServerError {
            guard case .transport(let why) = error else { Issue.record("expected a transport error, got \(error)"); return }
            #expect(why.contains("deadline"))
        }
        // The drip would take 100,000 × 0.2 s; the deadline (2 s) ended it. A generous bound:
        // this checks that the call returned at all, not how fast.
        #expect(Date().timeIntervalSince(started) < 60)
    }
}
