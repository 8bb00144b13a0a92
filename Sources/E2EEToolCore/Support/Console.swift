import Foundation

/// Where the tool writes: results on standard output (text, or one JSON document with
/// `--json`), progress on standard error (silent with `--json`).
struct Console: Sendable {
    /// Whether output is JSON.
    let json: Bool

    /// A progress line on standard error (not with `--json`).
    func progress(_ line: String) {
        guard !json else { return }
        Self.write(line + "\n", to: .standardError)
    }

    /// The command's result: `value` as JSON with `--json`, else `text()` on standard output.
    func result<T: Encodable>(_ value: T, text: () -> String) throws {
        if json {
            Self.write(try Self.encode(value) + "\n", to: .standardOutput)
        } else {
            let body = text()
            if !body.isEmpty { Self.write(body.hasSuffix("\n") ? body : body + "\n", to: .standardOutput) }
        }
    }

    /// One record of a stream, written at once: with `--json` one compact JSON object on one
    /// line (NDJSON), else `text()`; standard output either way.
    func record<T: Encodable>(_ value: T, text: () -> String) throws {
        if json {
            Self.write(try Self.encodeLine(value) + "\n", to: .standardOutput)
        } else {
            Self.write(text() + "\n", to: .standardOutput)
        }
    }

    /// A status line on standard error, also with `--json` (connection states with `--verbose`).
    func status(_ line: String) {
        Self.write(line + "\n", to: .standardError)
    }

    /// `value` as compact, key-sorted JSON on one line.
    static func encodeLine<T: Encodable>(_ value: T) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }

    /// `value` as pretty, key-sorted JSON.
    static func encode<T: Encodable>(_ value: T) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }

    /// Writes `text` unbuffered.
    static func write(_ text: String, to handle: FileHandle) {
        handle.write(Data(text.utf8))
    }
}
