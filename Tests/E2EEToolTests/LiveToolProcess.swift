import E2EETestSupport
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A pipe handed to its reader thread (the thread only reads its descriptor; the box keeps the
/// pipe, and so the descriptor, alive until the thread ends).
final class PipeBox: @unchecked Sendable {
    let pipe: Pipe
    init(_ pipe: Pipe) { self.pipe = pipe }
}

/// A long-running `e2ee-tool` child process (`listen`, `keys replenish --watch`) whose output
/// a test reads while it runs: standard output and error are collected as they are written,
/// and the test waits on them (never on the clock) before acting — sending, killing, stopping.
final class LiveToolProcess: Sendable {
    /// Everything the process wrote so far, and its exit status once it ended.
    struct Output: Sendable {
        /// The bytes as they came (decoded when read, so a character split across two reads
        /// stays whole).
        var stdoutBytes = Data()
        var stderrBytes = Data()
        var stdout: String { String(decoding: stdoutBytes, as: UTF8.self) }
        var stderr: String { String(decoding: stderrBytes, as: UTF8.self) }
        /// The status, or the signal that ended it (`terminationReason` `.uncaughtSignal`).
        var exit: (status: Int32, bySignal: Bool)?
        /// Both pipes reached end of file: everything written has been read.
        var stdoutClosed = false
        var stderrClosed = false

        /// Complete standard output lines.
        var lines: [String] { stdout.split(separator: "\n", omittingEmptySubsequences: true).map(String.init) }
        /// Standard output lines parsed as JSON objects (NDJSON).
        var objects: [[String: Any]] {
            lines.compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        }
        /// The `text` of every `"event": "message"` object, in order.
        var messageTexts: [String] {
            objects.filter { $0["event"] as? String == "message" }.compactMap { $0["text"] as? String }
        }
        /// For failure messages.
        var summary: String {
            "exit \(exit.map { "\($0.status)\($0.bySignal ? " (signal)" : "")" } ?? "-")\n--- stdout\n\(stdout)\n--- stderr\n\(stderr)"
        }
    }

    let arguments: [String]
    let output = Watched(Output())
    private let box: ProcessBox
    /// Standard input, when the test types into the process (`typing`).
    private let input: PipeBox?

    /// Starts `e2ee-tool arguments…` in `directory` with `environment` (plus PATH); with
    /// `typing`, its standard input is a pipe the test writes lines into (``type(_:)``).
    /// - Throws: ``ToolProcessError/executableMissing``, or what `Process.run()` throws.
    init(_ arguments: [String], environment: [String: String], in directory: URL, typing: Bool = false) throws {
        guard let executable = ToolProcess.executableURL() else { throw ToolProcessError.executableMissing }
        self.arguments = arguments
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        process.environment = environment.merging(["PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"]) { mine, _ in mine }
        process.currentDirectoryURL = directory
        let input = typing ? PipeBox(Pipe()) : nil
        process.standardInput = input?.pipe ?? FileHandle.nullDevice
        self.input = input
        let stdout = Pipe()
        let stderr = Pipe()
        process.standardOutput = stdout
        process.standardError = stderr
        box = ProcessBox(process)
        let output = self.output
        process.terminationHandler = { process in
            output.update { $0.exit = (process.terminationStatus, process.terminationReason == .uncaughtSignal) }
        }
        try process.run()
        // One reader thread per pipe, blocking in read(2) until end of file (FileHandle's
        // readabilityHandler is not used: on Linux, clearing it from inside its own callback
        // can crash libdispatch).
        Self.drain(PipeBox(stdout), received: { data in output.update { $0.stdoutBytes += data } },
                   closed: { output.update { $0.stdoutClosed = true } })
        Self.drain(PipeBox(stderr), received: { data in output.update { $0.stderrBytes += data } },
                   closed: { output.update { $0.stderrClosed = true } })
    }

    /// Reads `pipe` on its own thread until end of file.
    private static func drain(_ pipe: PipeBox, received: @escaping @Sendable (Data) -> Void, closed: @escaping @Sendable () -> Void) {
        let thread = Thread {
            let descriptor = pipe.pipe.fileHandleForReading.fileDescriptor
            var buffer = [UInt8](repeating: 0, count: 65_536)
            while true {
                let count = read(descriptor, &buffer, buffer.count)
                if count > 0 {
                    received(Data(buffer[0..<count]))
                } else if count < 0 && errno == EINTR {
                    continue
                } else {
                    break
                }
            }
            closed()
        }
        thread.start()
    }

    /// A test that ends early (a failed `#require`, a thrown error) leaves no process behind.
    deinit {
        let pid = box.process.processIdentifier
        if pid > 0, output.value.exit == nil { kill(pid, SIGKILL) }  // 0: never started (kill(0) would hit our group)
    }

    /// The child's process id.
    var pid: Int32 { box.process.processIdentifier }

    /// Types `line` and a newline into the process's standard input (started with `typing`).
    func type(_ line: String) {
        input?.pipe.fileHandleForWriting.write(Data((line + "\n").utf8))
    }

    /// Waits until the output satisfies `condition`; false after `limit` (or when the process
    /// ended without it).
    @discardableResult
    func wait(limit: Duration = .seconds(60), until condition: @escaping @Sendable (Output) -> Bool) async -> Bool {
        await output.wait(limit: limit) { condition($0) || $0.exit != nil } && condition(output.value)
    }

    /// Waits until `count` messages were printed as NDJSON.
    @discardableResult
    func waitForMessages(_ count: Int, limit: Duration = .seconds(60)) async -> Bool {
        await wait(limit: limit) { $0.messageTexts.count >= count }
    }

    /// Waits until the `--verbose` connection states on standard error include `state`
    /// `times` times.
    @discardableResult
    func waitForConnection(_ state: String = "connected", times: Int = 1, limit: Duration = .seconds(60)) async -> Bool {
        await wait(limit: limit) { $0.stderr.components(separatedBy: "connection: \(state)\n").count - 1 >= times }
    }

    /// Sends `signal` to the process.
    func send(signal number: Int32) {
        if pid > 0 { kill(pid, number) }
    }

    /// Waits for the process to end (SIGKILL after `limit`: a hang fails the test, not the run)
    /// and returns everything it wrote.
    func finish(limit: Duration = .seconds(60)) async -> Output {
        if await !output.wait(limit: limit, until: { $0.exit != nil }) {
            send(signal: SIGKILL)
            await output.wait(limit: .seconds(10)) { $0.exit != nil }
        }
        // The pipes deliver their last bytes (then end of file) after the exit may be seen.
        await output.wait(limit: .seconds(10)) { $0.stdoutClosed && $0.stderrClosed }
        return output.value
    }
}
