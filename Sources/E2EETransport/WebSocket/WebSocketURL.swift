import E2EEMessaging
import Foundation

/// The parts of a `ws://` or `wss://` URL the handshake needs.
struct WebSocketURL: Sendable, Equatable {
    /// Whether the connection uses TLS (`wss`).
    let secure: Bool
    /// The host name or address (IPv6 without brackets).
    let host: String
    /// The port (80 / 443 when the URL has none).
    let port: Int
    /// Path and query as sent in the request line, e.g. `/ws?ticket=…`.
    let requestTarget: String

    /// Parses `text`.
    /// - Throws: ``E2EEMessaging/ServerError/transport(_:)`` for anything but a `ws`/`wss` URL
    ///   with a host (the text itself is not repeated: it can carry a ticket).
    init(_ text: String) throws {
        guard let components = URLComponents(string: text),
              let scheme = components.scheme?.lowercased(), scheme == "ws" || scheme == "wss",
              let host = components.host, !host.isEmpty
        else { throw ServerError.transport("invalid WebSocket URL") }
        secure = scheme == "wss"
        self.host = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        port = components.port ?? (secure ? 443 : 80)
        let path = components.percentEncodedPath.isEmpty ? "/" : components.percentEncodedPath
        requestTarget = path + (components.percentEncodedQuery.map { "?" + $0 } ?? "")
    }

    private init(secure: Bool, host: String, port: Int, requestTarget: String) {
        self.secure = secure
        self.host = host
        self.port = port
        self.requestTarget = requestTarget
    }

    /// The same URL with another path and query.
    func with(requestTarget: String) -> WebSocketURL {
        WebSocketURL(secure: secure, host: host, port: port, requestTarget: requestTarget)
    }

    /// The `Host` header: the host, with the port unless it is the scheme's default.
    var hostHeader: String {
        let name = host.contains(":") ? "[\(host)]" : host
        return port == (secure ? 443 : 80) ? name : "\(name):\(port)"
    }
}
