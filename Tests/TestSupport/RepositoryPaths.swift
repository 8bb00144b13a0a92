import Foundation

/// Paths inside the repository, found from this source file's location so tests run from any
/// working directory.
public enum RepositoryPaths {
    /// The repository root (the folder holding Package.swift).
    public static let root: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent() // TestSupport
        .deletingLastPathComponent() // Tests
        .deletingLastPathComponent() // root

    /// `TestVectors/`.
    public static let testVectors: URL = root.appendingPathComponent("TestVectors", isDirectory: true)
}
