import Foundation
import Logging

/// swift-log set up for the tool: everything goes to standard error; `--verbose` shows debug
/// lines, otherwise only warnings and worse. Callers log ids, counts and states — never
/// tokens, keys, passphrases or message texts.
enum ToolLogging {
    private static let lock = NSLock()
    nonisolated(unsafe) private static var bootstrapped = false

    /// Installs the handler once per process.
    static func bootstrap(verbose: Bool) {
        lock.lock()
        defer { lock.unlock() }
        guard !bootstrapped else { return }
        bootstrapped = true
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = verbose ? .debug : .warning
            return handler
        }
    }

    /// The tool's logger.
    static func logger(_ label: String = "e2ee-tool") -> Logger { Logger(label: label) }
}
