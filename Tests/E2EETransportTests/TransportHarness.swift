import E2EEDevServer
import E2EEKeyStore
import E2EEMessaging
import E2EETransport
import Testing

/// Every transport suite that starts a dev server, one test at a time (see DevServerTests).
@Suite("Transport", .serialized)
enum TransportTests {}

/// A dev server on port 0 and clients of it.
struct TransportHarness: Sendable {
    let server: RunningDevServer

    /// Runs `body` against a fresh server and always shuts it down.
    static func with<T: Sendable>(_ configuration: DevServerConfiguration = .testing(), _ body: (TransportHarness) async throws -> T) async throws -> T {
        let server = try await DevServer.start(configuration: configuration)
        do {
            let result = try await body(TransportHarness(server: server))
            await server.shutdown()
            return result
        } catch {
            await server.shutdown()
            throw error
        }
    }

    /// A client with its own session (memory only unless `keyStore` is given).
    func client(keyStore: KeyStore? = nil, sleep: @escaping @Sendable (Duration) async throws -> Void = { _ in }) -> HTTPChatServer {
        HTTPChatServer(baseURL: server.baseURL, session: AuthSession(keyStore: keyStore, serverURL: server.baseURL), sleep: sleep)
    }

    /// A client registered as `username`.
    func registered(_ username: String, keyStore: KeyStore? = nil) async throws -> (HTTPChatServer, TokenResponse) {
        let client = client(keyStore: keyStore)
        let tokens = try await client.register(username: username, password: "password123", deviceName: "phone")
        return (client, tokens)
    }
}

/// Expects `body` to throw exactly `expected`.
func expectServerError<T>(_ expected: ServerError, _ body: () async throws -> T, sourceLocation: SourceLocation = #_sourceLocation) async {
    do {
        _ = try await body()
        Issue.record("expected \(expected), got success", sourceLocation: sourceLocation)
    } catch let error as ServerError {
        #expect(error == expected, sourceLocation: sourceLocation)
    } catch {
        Issue.record("expected \(expected), got \(error)", sourceLocation: sourceLocation)
    }
}

/// The case name of a server error, to match errors whose detail text does not matter.
func errorKind<T>(_ body: () async throws -> T) async -> String {
    do {
        _ = try await body()
        return "success"
    } catch let error as ServerError {
        return String(String(describing: error).prefix { $0 != "(" })
    } catch {
        return "other: \(type(of: error))"
    }
}
