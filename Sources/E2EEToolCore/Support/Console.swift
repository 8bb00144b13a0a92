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
