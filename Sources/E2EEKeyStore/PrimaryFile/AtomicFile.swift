import Foundation

/// Replaces a file atomically: write a temporary file beside it (owner-only, `O_EXCL`), sync
/// it, rename it over the target, sync the directory. A crash at any point leaves the old file
/// or the new one whole.
enum AtomicFile {
    /// Writes `bytes` to `path` through `temporary` (same directory).
    /// - Throws: ``PrimaryFileError/writeFailed(path:errno:)``; the temporary file is removed.
    static func write(_ bytes: [UInt8], to path: String, through temporary: String) throws {
        let descriptor = Foundation.open(temporary, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, mode_t(0o600))
        guard descriptor >= 0 else { throw PrimaryFileError.writeFailed(path: path, errno: errno) }
        var failure: Int32?
        bytes.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count, let base = buffer.baseAddress {
                let written = Foundation.write(descriptor, base + offset, buffer.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    failure = errno
                    return
                }
                offset += written
            }
            if fsync(descriptor) != 0 { failure = errno }
        }
        close(descriptor)
        if let failure {
            unlink(temporary)
            throw PrimaryFileError.writeFailed(path: path, errno: failure)
        }
        guard rename(temporary, path) == 0 else {
            let code = errno
            unlink(temporary)
            throw PrimaryFileError.writeFailed(path: path, errno: code)
        }
        syncDirectory(of: path)
    }

    /// Syncs the directory holding `path`, so the rename itself is durable (best effort: some
    /// file systems refuse to sync a directory).
    private static func syncDirectory(of path: String) {
        let directory = (path as NSString).deletingLastPathComponent
        let descriptor = Foundation.open(directory, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return }
        _ = fsync(descriptor)
        close(descriptor)
    }
}
