import Foundation

/// Reads `Retry-After` (delta seconds; the HTTP-date form is not used by the server).
enum RetryAfter {
    /// The longest wait honoured, in seconds: a hostile or broken header must not make the client
    /// wait for ever or overflow a sleep.
    static let maxSeconds = 300

    /// The header's seconds, clamped to 0…``maxSeconds``; `nil` when absent or not a number.
    static func seconds(fromHeader value: String?) -> Int? {
        guard let value else { return nil }
        let trimmed = value.trimmingCharacters(in: .whitespaces)
        guard !trimmed.isEmpty, trimmed.utf8.allSatisfy({ (48...57).contains($0) }) else { return nil }
        // More digits than an Int holds are clamped like any other large value.
        return Int(trimmed).map { min($0, maxSeconds) } ?? maxSeconds
    }
}
