import E2EETestSupport
import Foundation

/// What one run of the built `e2ee-tool` produced.
struct ToolRun: Sendable {
    let status: Int32
    let stdout: String
    let stderr: String

    /// Standard output parsed as a JSON object.
    func json() throws -> [String: Any] {
        guard let object = try JSONSerialization.jsonObject(with: Data(stdout.utf8)) as? [String: Any] else {
            throw ToolProcessError.notAnObject(stdout)
        }
        return object
    }

    /// For failure messages.
    var summary: String { "exit \(status)\n--- stdout\n\(stdout)\n--- stderr\n\(stderr)" }
}

/// Why a tool run could not be made or read.
enum ToolProcessError: Error, CustomStringConvertible {
    case executableMissing
    case notAnObject(String)
    case timedOut([String])

    var description: String {
        switch self {
        case .executableMissing: "e2ee-tool not found next to the test bundle; run swift build --build-tests"
        case .notAnObject(let text): "standard output is not a JSON object: \(text)"
        case .timedOut(let arguments): "e2ee-tool \(arguments.joined(separator: " ")) did not finish in time"
        }
    }
}

/// Runs the built executable as a child process: standard input from `/dev/null` (no
/// terminal, so secrets must come from the environment), standard output and error to files,
/// and exactly the environment given (plus PATH).
enum ToolProcess {
    /// The executable: built beside the test bundle in the build products directory (as
    /// `CrashTests` finds `StoreCrashWorker`).
    static func executableURL() -> URL? {
        var candidates: [URL] = []
        let argv0 = URL(fileURLWithPath: CommandLine.arguments.first ?? "").resolvingSymlinksInPath()
        var directory = argv0.deletingLastPathComponent()
        for _ in 0..<4 {
            candidates.append(directory)
            directory = directory.deletingLastPathComponent()
        }
        candidates += Bundle.allBundles.map { $0.bundleURL.deletingLastPathComponent() }
        candidates.append(RepositoryPaths.root.appendingPathComponent(".build/debug"))
        return candidates.map { $0.appendingPathComponent("e2ee-tool") }
            .first { FileManager.default.isExecutableFile(atPath: $0.path) }
    }

    /// Runs `e2ee-tool arguments…` in `directory` and waits for it (killed after `timeout`).
    static func run(_ arguments: [String], environment: [String: String], in directory: URL,
                    timeout: Duration = .seconds(300)) async throws -> ToolRun {
        guard let executable = executableURL() else { throw ToolProcessError.executableMissing }
        let outputURL = directory.appendingPathComponent("stdout-\(UUID().uuidString)")
        let errorURL = directory.appendingPathComponent("stderr-\(UUID().uuidString)")
        _ = FileManager.default.createFile(atPath: outputURL.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errorURL.path, contents: nil)
        defer {
            try? FileManager.default.removeItem(at: outputURL)
            try? FileManager.default.removeItem(at: errorURL)
        }
        let output = try FileHandle(forWritingTo: outputURL)
        let errors = try FileHandle(forWritingTo: errorURL)
        let box = ProcessBox(Process())
        box.process.executableURL = executable
        box.process.arguments = arguments
        box.process.environment = environment.merging(["PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"]) { mine, _ in mine }
        box.process.currentDirectoryURL = directory
        box.process.standardInput = FileHandle.nullDevice
        box.process.standardOutput = output
        box.process.standardError = errors

        let watchdog = Task { () -> Bool in
            do { try await Task.sleep(for: timeout) } catch { return false }
            guard box.process.isRunning else { return false }
            box.process.terminate()
            return true
        }
        let status: Int32 = try await withCheckedThrowingContinuation { continuation in
            box.process.terminationHandler = { process in continuation.resume(returning: process.terminationStatus) }
            do {
                try box.process.run()
            } catch {
                box.process.terminationHandler = nil
                continuation.resume(throwing: error)
            }
        }
        watchdog.cancel()
        let timedOut = await watchdog.value
        try? output.close()
        try? errors.close()
        if timedOut { throw ToolProcessError.timedOut(arguments) }
        return ToolRun(status: status,
                       stdout: (try? String(contentsOf: outputURL, encoding: .utf8)) ?? "",
                       stderr: (try? String(contentsOf: errorURL, encoding: .utf8)) ?? "")
    }
}

/// The child process, handed to the watchdog task (Foundation's `Process` is thread-safe for
/// `isRunning` and `terminate`).
final class ProcessBox: @unchecked Sendable {
    let process: Process
    init(_ process: Process) { self.process = process }
}
