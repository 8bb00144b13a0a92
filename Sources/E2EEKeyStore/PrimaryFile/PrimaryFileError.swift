/// Why the primary file (docs/spec/protocol.md §3 "State", §10.12) could not be read or
/// written. No case carries secret bytes: only paths, counts and public reasons.
public enum PrimaryFileError: Error, Sendable, Equatable {
    /// There is no primary file beside the store.
    case missing
    /// The file does not open under the key the keychain gave: another key, or bytes altered
    /// since it was sealed (the two cannot be told apart).
    case unreadable
    /// The file is not a primary file, or opened but its contents break the format (a wrong
    /// length, a count beyond its bound, a certificate that does not match its entry…).
    case damaged(reason: String)
    /// The file was written by a newer version of the format.
    case unsupportedVersion(UInt8)
    /// The keychain holds no key for a file that exists (the item was deleted, or the file was
    /// copied from another installation).
    case keyUnavailable
    /// The file cannot be excluded from backups where it lives (or the store has no place on
    /// disk): the core refuses to keep a user key there.
    case unprotected(path: String?)
    /// Writing the file failed (the OS error number); the previous file, if any, is unchanged.
    case writeFailed(path: String, errno: Int32)
}
