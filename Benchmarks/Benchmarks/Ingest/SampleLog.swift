import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The sample lines (package-benchmark sends a benchmark's stdout and stderr to /dev/null while
/// it runs): appended to the file `INGEST_SAMPLE_LOG` names, if set (`ingest.sh` sets it).
enum SampleLog {
    static func append(_ line: String) {
        guard let path = ProcessInfo.processInfo.environment["INGEST_SAMPLE_LOG"] else { return }
        if !FileManager.default.fileExists(atPath: path) { _ = FileManager.default.createFile(atPath: path, contents: nil) }
        guard let handle = FileHandle(forWritingAtPath: path) else { return }
        defer { try? handle.close() }
        handle.seekToEndOfFile()
        handle.write(Data((line + "\n").utf8))
    }
}

/// CLOCK_MONOTONIC in seconds, the clock `perf record -k mono` stamps its samples with: the
/// sample line names the ingest's start and end on it, so a profile of the whole benchmark
/// process can be cut to the ingest alone (`perf report --time start,end`).
func monotonicSeconds() -> String {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    return String(format: "%.6f", Double(now.tv_sec) + Double(now.tv_nsec) / 1e9)
}

/// `numerator / denominator` as a plain number.
func ratio(_ numerator: Duration, _ denominator: Duration) -> Double {
    (numerator / .microseconds(1)) / max(1, denominator / .microseconds(1))
}

/// Seconds with three decimals.
func seconds(_ duration: Duration) -> String {
    String(format: "%.3f", Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18)
}

/// The process's CPU time so far (`getrusage`): on a shared machine the wall clock includes
/// other processes' turns, CPU time does not.
struct ProcessCPU {
    var user: Duration
    var system: Duration

    static func now() -> ProcessCPU {
        var usage = rusage()
        #if canImport(Glibc)
        getrusage(RUSAGE_SELF.rawValue, &usage)
        #else
        getrusage(RUSAGE_SELF, &usage)
        #endif
        func duration(_ time: timeval) -> Duration { .seconds(Int64(time.tv_sec)) + .microseconds(Int64(time.tv_usec)) }
        return ProcessCPU(user: duration(usage.ru_utime), system: duration(usage.ru_stime))
    }

    /// The process's resident memory now (`/proc/self/statm`; 0 where it cannot be read).
    static func residentBytes() -> Int {
        guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8),
              let pages = text.split(separator: " ").dropFirst().first.flatMap({ Int($0) }) else { return 0 }
        return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
    }

    /// The bytes the process has written through `write` and its kin so far (`wchar` of
    /// `/proc/self/io`, which counts writes to the page cache, not to the disk; 0 where it
    /// cannot be read). During an ingest these are the store's WAL and database writes.
    static func bytesWritten() -> Int {
        guard let text = try? String(contentsOfFile: "/proc/self/io", encoding: .utf8),
              let line = text.split(separator: "\n").first(where: { $0.hasPrefix("wchar:") }),
              let bytes = line.split(separator: " ").last.flatMap({ Int($0) }) else { return 0 }
        return bytes
    }

    static func - (lhs: ProcessCPU, rhs: ProcessCPU) -> ProcessCPU {
        ProcessCPU(user: lhs.user - rhs.user, system: lhs.system - rhs.system)
    }
}

extension IngestInput {
    /// The input's shape and the memory it holds, for the sample log.
    func summary(residentBefore: Int) -> String {
        let frames = deliveries.filter(\.isSocketFrame).count
        return "ingest input: \(Traffic.uniqueCount) rows (\(traffic.groupCount) group, \(traffic.directCount) DM, \(traffic.distributionCount) SKDs), "
            + "\(messageCount) deliveries in \(deliveries.count - frames) REST batches and \(frames) frames "
            + "(\(bytes.reduce(0) { $0 + $1.byteCount } / 1_000_000) MB of JSON); resident memory "
            + "\(residentBefore / 1_000_000) MB before building it, \(ProcessCPU.residentBytes() / 1_000_000) MB after"
    }
}
