import Foundation

/// Writes seed inputs a target derives from its own fixture (real envelopes, real serialised
/// state) into a corpus folder, when `FUZZ_WRITE_SEEDS=<folder>` is set. `run.sh` and
/// `smoke.sh` never set it; `Fuzz/seed.sh` does, to regenerate the committed seeds.
public enum SeedWriter {
    /// The folder named by `FUZZ_WRITE_SEEDS`, if any.
    public static var folder: URL? {
        ProcessInfo.processInfo.environment["FUZZ_WRITE_SEEDS"].map { URL(fileURLWithPath: $0, isDirectory: true) }
    }

    /// Writes each seed as `<prefix>-<index>` into ``folder`` (nothing when it is unset).
    /// - Throws: the file system's errors.
    public static func write(_ seeds: [[UInt8]], prefix: String) throws {
        guard let folder else { return }
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        for (index, seed) in seeds.enumerated() {
            try Data(seed).write(to: folder.appendingPathComponent("\(prefix)-\(index)"))
        }
    }
}
