import E2EECrypto
import Foundation

/// The primary file on disk (docs/spec/protocol.md §3 "State", §10.12): beside the store, in a
/// directory of its own (`<store file>.primary/`), sealed under a key from the app's
/// ``PrimaryFileKeychain`` and excluded from backups (``BackupExclusion``). Written atomically:
/// a temporary file is written and synced, then renamed over the old one and the directory
/// synced, so a crash leaves the old file or the new one, never a mix.
package struct PrimaryFile: Sendable {
    /// The file key's length.
    public static let keyLength = 32
    /// The file's name in its directory.
    public static let fileName = "primary-file"

    /// The directory holding the file (and its backup-exclusion tag).
    public let directory: URL
    /// The file.
    public var url: URL { directory.appendingPathComponent(Self.fileName) }

    /// The primary file of the store at `storePath`.
    public init(storePath: String) {
        directory = URL(fileURLWithPath: storePath + ".primary", isDirectory: true)
    }

    /// The keychain item holding the file key of `userID`'s primary on this installation.
    public static func keychainItem(userID: String) -> String { "e2ee-primary-file/\(userID)" }

    /// Whether the file exists.
    public var exists: Bool { FileManager.default.fileExists(atPath: url.path) }

    /// Reads and opens the file.
    /// - Throws: ``PrimaryFileError/missing``, ``PrimaryFileError/unreadable``,
    ///   ``PrimaryFileError/damaged(reason:)``, ``PrimaryFileError/unsupportedVersion(_:)``.
    public func load(key: SecretBytes) throws -> PrimaryFileContents {
        guard let data = FileManager.default.contents(atPath: url.path) else { throw PrimaryFileError.missing }
        return try PrimaryFileCodec.open([UInt8](data), key: key)
    }

    /// Seals `contents` and replaces the file atomically, then sets the backup exclusion again.
    /// - Throws: ``PrimaryFileError/unprotected(path:)`` when the directory cannot be made or
    ///   excluded from backups (nothing written), ``PrimaryFileError/writeFailed(path:errno:)``.
    public func save(_ contents: PrimaryFileContents, key: SecretBytes, random: any RandomSource) throws {
        try protect()
        let sealed = try PrimaryFileCodec.seal(contents, key: key, nonce: random.bytes(count: XChaCha20Poly1305.nonceLength))
        let temporary = directory.appendingPathComponent(Self.fileName + ".tmp-" + Hex.string(random.bytes(count: 8)))
        try AtomicFile.write(sealed, to: url.path, through: temporary.path)
        try protect()
    }

    /// Makes the directory (owner-only) and sets its backup exclusion.
    /// - Throws: ``PrimaryFileError/unprotected(path:)``.
    public func protect() throws {
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            try BackupExclusion.apply(directory: directory, file: exists ? url : nil)
        } catch {
            throw PrimaryFileError.unprotected(path: directory.path)
        }
    }

    /// Whether the file's backup exclusion is in place (checked before issuing).
    public var isProtected: Bool { BackupExclusion.isApplied(directory: directory, file: exists ? url : nil) }

    /// Deletes the file (tests, and a reset that replaces it).
    public func remove() throws {
        if exists { try FileManager.default.removeItem(at: url) }
    }
}

/// Lower-case hex, for temporary names.
private enum Hex {
    static func string(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02x", $0) }.joined() }
}
