import Foundation

/// The addresses of one chat server, derived from the one URL an app is given: the REST base
/// (`http(s)://host[:port]`) and the realtime endpoint (`ws(s)://host[:port]/ws`,
/// docs/spec/server-api.md §6).
public struct ServerAddress: Sendable, Hashable, CustomStringConvertible {
    /// The REST base URL, `http(s)://host[:port]` with no trailing `/` and no `/api/v1`.
    public let baseURL: String
    /// The WebSocket endpoint: `ws` for `http`, `wss` for `https`, the same host and port, path `/ws`.
    public let webSocketURL: String

    /// Parses `text`: `http(s)://host[:port]`, where a trailing `/` or `/api/v1` is dropped.
    /// - Throws: ``ServerSetupError/notHTTP`` for another scheme or no scheme,
    ///   ``ServerSetupError/missingHost``, ``ServerSetupError/unexpectedURLParts`` for a path,
    ///   query, fragment or user name (the text itself is never repeated: it could hold a password).
    public init(_ text: String) throws(ServerSetupError) {
        var value = text.trimmingCharacters(in: .whitespaces)
        while value.hasSuffix("/") { value.removeLast() }
        if value.hasSuffix("/api/v1") { value.removeLast("/api/v1".count) }
        guard let components = URLComponents(string: value), let scheme = components.scheme?.lowercased(),
              scheme == "http" || scheme == "https" else { throw .notHTTP }
        guard let host = components.host, !host.isEmpty else { throw .missingHost }
        guard components.path.isEmpty, components.query == nil, components.fragment == nil,
              components.user == nil, components.password == nil else { throw .unexpectedURLParts }
        let rest = value.dropFirst(scheme.count)  // "://host[:port]", the host as given
        baseURL = scheme + rest
        webSocketURL = (scheme == "https" ? "wss" : "ws") + rest + "/ws"
    }

    /// The REST base URL.
    public var description: String { baseURL }
}

/// Why a server URL, or a store, does not fit the setup asked for.
public enum ServerSetupError: Error, Sendable, Equatable {
    /// The URL is not `http://` or `https://`.
    case notHTTP
    /// The URL has no host.
    case missingHost
    /// The URL has a path, query, fragment or credentials: give only `http(s)://host[:port]`.
    case unexpectedURLParts
    /// The store holds an account of another server (its URL as saved there).
    case storeBelongsToAnotherServer(storedURL: String)
}
