import Foundation

/// Where a store file is: `--store`, else `E2EE_STORE`, else the default name for
/// (`--server`, `--username`) in the data directory, else the only store there.
///
/// The data directory is `$XDG_DATA_HOME/e2ee-tool` (when set to an absolute path), else
/// `~/.local/share/e2ee-tool`; default names are `<host>[_<port>]-<username>.sqlite`.
struct StoreLocation {
    let environment: [String: String]

    /// The data directory.
    var dataDirectory: URL {
        if let xdg = environment["XDG_DATA_HOME"], xdg.hasPrefix("/") {
            return URL(fileURLWithPath: xdg, isDirectory: true).appendingPathComponent("e2ee-tool", isDirectory: true)
        }
        let home = environment["HOME"].map { URL(fileURLWithPath: $0, isDirectory: true) }
            ?? FileManager.default.homeDirectoryForCurrentUser
        return home.appendingPathComponent(".local/share/e2ee-tool", isDirectory: true)
    }

    /// The default file name for a user on a server (`127.0.0.1_8000-alice.sqlite`).
    static func defaultFileName(serverURL: String, username: String) -> String {
        let components = URLComponents(string: serverURL)
        var host = components?.host ?? "server"
        if let port = components?.port { host += "_\(port)" }
        return sanitised(host) + "-" + sanitised(username.lowercased()) + ".sqlite"
    }

    /// The store for a new account (register, login): `--store`, `E2EE_STORE`, or the default name.
    func forNewAccount(explicit: String?, serverURL: String, username: String) -> URL {
        if let path = explicit ?? environment["E2EE_STORE"] { return URL(fileURLWithPath: path) }
        return dataDirectory.appendingPathComponent(Self.defaultFileName(serverURL: serverURL, username: username))
    }

    /// The existing store a command works on.
    /// - Throws: ``ToolError`` (usage) when several stores could be meant, (not found) when none.
    func existing(explicit: String?, serverURL: String?, username: String?) throws -> URL {
        if let path = explicit ?? environment["E2EE_STORE"] { return URL(fileURLWithPath: path) }
        if let serverURL, let username {
            return dataDirectory.appendingPathComponent(Self.defaultFileName(serverURL: serverURL, username: username))
        }
        let stores = ((try? FileManager.default.contentsOfDirectory(atPath: dataDirectory.path)) ?? [])
            .filter { $0.hasSuffix(".sqlite") }
            .filter { name in username.map { name.hasSuffix("-" + Self.sanitised($0.lowercased()) + ".sqlite") } ?? true }
            .sorted()
        switch stores.count {
        case 1: return dataDirectory.appendingPathComponent(stores[0])
        case 0: throw ToolError(.notFound, "no store in \(dataDirectory.path): run account register or account login, or pass --store")
        default:
            throw ToolError(.usage, "several stores in \(dataDirectory.path) (\(stores.joined(separator: ", "))): pick one with --store, or --server and --username")
        }
    }

    private static func sanitised(_ text: String) -> String {
        String(text.map { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "." || $0 == "-") ? $0 : "_" })
    }
}
