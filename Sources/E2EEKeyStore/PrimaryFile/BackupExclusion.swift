import Foundation

/// Keeps the primary file out of backups (docs/spec/protocol.md §3 "State", §10.12): a primary
/// file restored from a backup beside a newer store, or onto another machine, would issue
/// certificates the log of the real primary lacks.
///
/// On Apple platforms the directory and the file carry `isExcludedFromBackup` (Time Machine,
/// iCloud and iTunes backups skip them). Linux has no standard attribute, so the directory
/// holds a `CACHEDIR.TAG` (the Cache Directory Tagging Specification), which borg
/// (`--exclude-caches`), restic (`--exclude-caches`), GNU tar (`--exclude-caches`) and others
/// honour; the file lives only in that directory. Both platforms write the tag; the check
/// before issuing requires it (and, on Apple platforms, the attribute).
enum BackupExclusion {
    /// The tag file's name.
    static let tagName = "CACHEDIR.TAG"
    /// The tag's required first line (the specification's signature).
    static let signature = "Signature: 8a477f597d28d172789f06886806bc55"
    /// The tag's contents.
    static let tag = signature + "\n# This directory holds an E2EECore primary file: it must never be backed up or copied.\n"
        + "# For information about cache directory tags see https://bford.info/cachedir/\n"

    /// Writes the tag (when missing or wrong) and, on Apple platforms, sets the attribute.
    /// - Throws: the file system's error when either cannot be set.
    static func apply(directory: URL, file: URL?) throws {
        let tagURL = directory.appendingPathComponent(tagName)
        if !hasTag(tagURL) { try Data(tag.utf8).write(to: tagURL, options: .atomic) }
        guard hasTag(tagURL) else { throw CocoaError(.fileWriteUnknown) }
        #if canImport(Darwin)
        var values = URLResourceValues()
        values.isExcludedFromBackup = true
        var directory = directory
        try directory.setResourceValues(values)
        if var file { try file.setResourceValues(values) }
        #endif
    }

    /// Whether the exclusion is in place.
    static func isApplied(directory: URL, file: URL?) -> Bool {
        guard hasTag(directory.appendingPathComponent(tagName)) else { return false }
        #if canImport(Darwin)
        for url in [directory] + (file.map { [$0] } ?? []) {
            guard (try? url.resourceValues(forKeys: [.isExcludedFromBackupKey]))?.isExcludedFromBackup == true else { return false }
        }
        #endif
        return true
    }

    private static func hasTag(_ url: URL) -> Bool {
        guard let data = FileManager.default.contents(atPath: url.path), let text = String(data: data, encoding: .utf8) else { return false }
        return text.hasPrefix(signature)
    }
}
