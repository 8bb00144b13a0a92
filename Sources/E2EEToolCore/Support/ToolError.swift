/// A failure the tool reports itself: a public message and the exit status it ends with.
/// Messages never carry secrets (tokens, keys, passphrases, plaintexts).
public struct ToolError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The exit status.
    public let code: ToolExitCode
    /// What to tell the user.
    public let message: String
    /// Whether the command already wrote its result (with `--json`, no second document).
    public let resultWritten: Bool

    /// Creates the error.
    public init(_ code: ToolExitCode, _ message: String, resultWritten: Bool = false) {
        self.code = code
        self.message = message
        self.resultWritten = resultWritten
    }

    /// The message.
    public var description: String { message }
}
