import Foundation

/// How many processor cores this process may run on: what splitting CPU work into parallel
/// tasks should count.
///
/// `ProcessInfo.activeProcessorCount` counts the machine's online cores. A process confined to
/// fewer (`taskset`, a container's CPU set) would then split a batch's work into more tasks
/// than can ever run at once, and pay their creation and hand-over for nothing. On Linux this
/// reads the calling thread's CPU affinity (`Cpus_allowed` in `/proc/thread-self/status`)
/// instead. A container's CPU quota (cgroup `cpu.max`) is a share of time, not of cores, and
/// is not counted.
enum UsableCores {
    /// The count when first asked (the process's affinity is inherited by all its threads),
    /// at least 1.
    static let count = current()

    /// The cores the calling thread may run on now, at least 1 and at most the online cores:
    /// its affinity on Linux; the online cores elsewhere, or when the affinity cannot be read.
    static func current() -> Int {
        let online = max(1, ProcessInfo.processInfo.activeProcessorCount)
        #if os(Linux)
        if let status = try? String(contentsOfFile: "/proc/thread-self/status", encoding: .utf8),
           let allowed = allowedCores(inStatus: status), allowed > 0 {
            return min(allowed, online)
        }
        #endif
        return online
    }

    /// The cores a `/proc/<pid>/status` text allows: the bits set in its `Cpus_allowed` mask
    /// (hexadecimal, in comma-separated groups of 32 bits); nil when there is no such line or
    /// it does not parse.
    static func allowedCores(inStatus status: String) -> Int? {
        guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix("Cpus_allowed:") }) else { return nil }
        let mask = line.dropFirst("Cpus_allowed:".count).trimmingCharacters(in: .whitespaces)
        var count = 0
        for group in mask.split(separator: ",") {
            guard let bits = UInt32(group, radix: 16) else { return nil }
            count += bits.nonzeroBitCount
        }
        return count
    }
}
