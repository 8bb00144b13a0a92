import Foundation

/// Reports a broken property as a crash, so libFuzzer saves the input as a finding
/// (`crash-<sha1>`) exactly as it does for a trap or a sanitizer report.
public enum PropertyCheck {
    /// Aborts with `message` on standard error when `condition` is false.
    public static func require(_ condition: @autoclosure () -> Bool, _ message: @autoclosure () -> String) {
        guard !condition() else { return }
        FileHandle.standardError.write(Data("PROPERTY VIOLATED: \(message())\n".utf8))
        abort()
    }
}
