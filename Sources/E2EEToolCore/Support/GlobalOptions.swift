import ArgumentParser
import E2EETransport
import Foundation

/// The options every command that works on a store takes.
struct GlobalOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("The store file (default: chosen from --server and --username, E2EE_STORE, or the only store in the data directory).",
                                            valueName: "path"))
    var store: String?

    @Option(name: .long, help: ArgumentHelp("The server, http(s)://host[:port] (register and login need it; other commands read it from the store).",
                                            valueName: "url"))
    var server: String?

    @Option(name: .long, help: ArgumentHelp("The username (register and login need it; elsewhere it picks the default store).", valueName: "name"))
    var username: String?

    @Flag(name: .long, help: "Machine output: one JSON document on standard output (errors too).")
    var json = false

    @Flag(name: .long, help: "Log what the tool does to standard error (never tokens, keys or message texts).")
    var verbose = false
}

/// `--server` as the tool accepts it: E2EETransport's ``ServerAddress`` rules, refused as a
/// usage error.
enum ServerOption {
    /// `http(s)://host[:port]` with any trailing `/` or `/api/v1` removed.
    /// - Throws: ``ToolError`` (usage) for anything else.
    static func normalise(_ text: String) throws -> String {
        try address(text).baseURL
    }

    /// The addresses of a server URL.
    /// - Throws: ``ToolError`` (usage) for a URL that is not `http(s)://host[:port]`.
    static func address(_ text: String) throws -> ServerAddress {
        do {
            return try ServerAddress(text)
        } catch {
            throw ToolError(.usage, "--server must look like http://host:port (got \(text))")
        }
    }
}
