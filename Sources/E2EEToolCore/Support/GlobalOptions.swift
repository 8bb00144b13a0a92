import ArgumentParser
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

/// Server URLs as the tool accepts them.
enum ServerAddress {
    /// `http(s)://host[:port]` with any trailing `/` or `/api/v1` removed.
    /// - Throws: ``ToolError`` (usage) for anything else.
    static func normalise(_ text: String) throws -> String {
        var value = text.trimmingCharacters(in: .whitespaces)
        while value.hasSuffix("/") { value.removeLast() }
        if value.hasSuffix("/api/v1") { value.removeLast("/api/v1".count) }
        guard let components = URLComponents(string: value), let scheme = components.scheme?.lowercased(),
              scheme == "http" || scheme == "https", let host = components.host, !host.isEmpty,
              components.path.isEmpty, components.query == nil, components.user == nil else {
            throw ToolError(.usage, "--server must look like http://host:port (got \(text))")
        }
        return value
    }

    /// The realtime endpoint of a normalised server URL: `http` → `ws`, `https` → `wss`, path `/ws`.
    static func webSocketURL(for serverURL: String) -> String {
        if serverURL.lowercased().hasPrefix("https://") { return "wss://" + serverURL.dropFirst("https://".count) + "/ws" }
        if serverURL.lowercased().hasPrefix("http://") { return "ws://" + serverURL.dropFirst("http://".count) + "/ws" }
        return serverURL + "/ws"
    }
}
