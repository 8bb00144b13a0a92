import Foundation

/// Owner-only permissions for every file of a store (docs/key-store.md, "File permissions").
///
/// SQLite creates `-wal` and `-shm` with the mode of the database file, so creating the main
/// file as `0600` before SQLite opens it covers all three whatever the umask. A store made
/// before this rule (or copied in with a loose mode) is tightened on open.
enum StoreFilePermissions {
    /// The mode of every store file: read and write for the owner only.
    static let ownerOnly: Int = 0o600
    /// The files SQLite keeps beside the database.
    static let sideFileSuffixes = ["-wal", "-shm"]

    /// Creates the database file as `0600` when it does not exist; otherwise tightens the
    /// database and its side files to `0600` when they allow group or other access.
    /// - Throws: ``KeyStoreError/insecureFilePermissions(path:)`` when a file cannot be
    ///   created or its mode cannot be changed.
    static func prepare(path: String) throws {
        let manager = FileManager.default
        if !manager.fileExists(atPath: path) {
            // O_EXCL: if another process created it meanwhile, fall through to the check below.
            let descriptor = Foundation.open(path, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, mode_t(ownerOnly))
            if descriptor >= 0 {
                close(descriptor)
                // The umask can only remove bits; make the mode exact anyway.
                guard chmod(path, mode_t(ownerOnly)) == 0 else { throw KeyStoreError.insecureFilePermissions(path: path) }
                return
            }
            guard errno == EEXIST else { throw KeyStoreError.insecureFilePermissions(path: path) }
        }
        for file in [path] + sideFileSuffixes.map({ path + $0 }) {
            try tighten(file)
        }
    }

    /// The permission bits of `path` (`nil` when it does not exist).
    static func mode(of path: String) -> Int? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return Int(info.st_mode) & 0o777
    }

    private static func tighten(_ path: String) throws {
        guard let mode = mode(of: path), mode & 0o077 != 0 else { return }
        guard chmod(path, mode_t(mode & 0o700)) == 0 else { throw KeyStoreError.insecureFilePermissions(path: path) }
    }
}
