import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A child process started with `posix_spawn` and reaped only by ``killAndReap()``.
///
/// Foundation's `Process` reaps its child on a background thread as soon as it exits; a test
/// that then sends `SIGKILL` to the remembered pid can hit whatever reused that pid — on Linux
/// even a thread of the test process itself, since `kill` on a thread id signals its whole
/// process. Reaping ourselves keeps the pid ours until the kill has landed.
final class KillableChild {
    /// The child's pid; valid until ``killAndReap()`` returns.
    let pid: pid_t
    private let outputDescriptor: Int32

    /// Starts `executable` with `arguments` and exactly `environment`; its standard output goes to
    /// a pipe read by ``killAndReap()``, its standard error to `/dev/null`.
    init(executable: String, arguments: [String], environment: [String: String]) throws {
        var descriptors: [Int32] = [0, 0]
        guard pipe(&descriptors) == 0 else { throw POSIXError(.init(rawValue: errno) ?? .EIO) }
        let (readEnd, writeEnd) = (descriptors[0], descriptors[1])
        // Keep both ends out of any other child this process starts meanwhile.
        _ = fcntl(readEnd, F_SETFD, FD_CLOEXEC)
        _ = fcntl(writeEnd, F_SETFD, FD_CLOEXEC)

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, writeEnd, STDOUT_FILENO)
        posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, "/dev/null", O_WRONLY, 0)

        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { (argv + envp).forEach { free($0) } }

        var child: pid_t = 0
        let status = posix_spawn(&child, executable, &actions, nil, argv, envp)
        close(writeEnd)
        guard status == 0 else {
            close(readEnd)
            throw POSIXError(.init(rawValue: status) ?? .EIO)
        }
        pid = child
        outputDescriptor = readEnd
    }

    /// Sends `SIGKILL`, waits for the child, and returns whether the kill is what ended it
    /// (rather than the child exiting by itself first) and what it wrote to standard output.
    func killAndReap() -> (killed: Bool, output: String) {
        kill(pid, SIGKILL)
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
        var output = [UInt8]()
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(outputDescriptor, $0.baseAddress, $0.count) }
            if count > 0 { output += chunk[0..<count] } else if count == -1 && errno == EINTR { continue } else { break }
        }
        close(outputDescriptor)
        let terminatingSignal = status & 0x7f
        return (terminatingSignal == SIGKILL, String(decoding: output, as: UTF8.self))
    }
}
