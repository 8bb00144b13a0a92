import E2EEDevServer
import Foundation

/// A development server whose state lives in a file, so that it can be stopped and started
/// again on the same port (what a restarted server looks like to a client).
struct RestartableDevServer {
    let directory: URL
    var configuration: DevServerConfiguration

    init(_ configuration: DevServerConfiguration = .testing()) throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("e2ee-restart-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        self.configuration = configuration
        self.configuration.databasePath = directory.appendingPathComponent("server.sqlite").path
    }

    /// Starts the server: on a free port the first time, on the same port after that.
    mutating func start() async throws -> RunningDevServer {
        let server = try await DevServer.start(configuration: configuration)
        configuration.port = server.port
        return server
    }

    /// Removes the server's files.
    func remove() {
        try? FileManager.default.removeItem(at: directory)
    }
}
