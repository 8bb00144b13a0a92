import E2EEDevServer
import Foundation

// `swift run e2ee-devserver [--host H] [--port N] [--database FILE] [--no-quirks]
//  [--no-rate-limit] [--log]`: a development server for a person, until Ctrl-C.

/// Writes a line to standard output, unbuffered (so a log file sees it at once).
func say(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

let usage = """
    usage: e2ee-devserver [--host 127.0.0.1] [--port 8000] [--database FILE] [--no-quirks] [--no-rate-limit] [--log]
    """
var configuration = DevServerConfiguration(logRequests: false)
var arguments = CommandLine.arguments.dropFirst().makeIterator()
while let argument = arguments.next() {
    switch argument {
    case "--host":
        guard let value = arguments.next() else { say(usage); exit(2) }
        configuration.host = value
    case "--port":
        guard let value = arguments.next().flatMap({ Int($0) }), (0...65535).contains(value) else { say(usage); exit(2) }
        configuration.port = value
    case "--database":
        guard let value = arguments.next() else { say(usage); exit(2) }
        configuration.databasePath = value
    case "--no-quirks":
        configuration.quirks = .none
    case "--no-rate-limit":
        configuration.rateLimit = nil
    case "--log":
        configuration.logRequests = true
    case "--help", "-h":
        say(usage)
        exit(0)
    default:
        say("unknown argument: \(argument)\n\(usage)")
        exit(2)
    }
}

do {
    let server = try await DevServer.start(configuration: configuration)
    say("e2ee-devserver listening on \(server.baseURL) (WebSocket \(server.webSocketURL)); Ctrl-C to stop")
    let (signals, signalled) = AsyncStream.makeStream(of: Void.self)
    signal(SIGINT, SIG_IGN)
    signal(SIGTERM, SIG_IGN)
    let sources = [SIGINT, SIGTERM].map { number in
        let source = DispatchSource.makeSignalSource(signal: number, queue: .main)
        source.setEventHandler { signalled.yield() }
        source.resume()
        return source
    }
    for await _ in signals { break }
    sources.forEach { $0.cancel() }
    say("stopping")
    await server.shutdown()
} catch {
    say("e2ee-devserver failed to start: \(error)")
    exit(1)
}
