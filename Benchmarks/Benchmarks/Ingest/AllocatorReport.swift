import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Where the process's resident memory sits after a sample (`INGEST_ALLOCATOR_REPORT=1`): how
/// much glibc's allocator holds and how much of that is free (`malloc_info`, looked up at run time:
/// its header is not in the Glibc module), over how many arenas, how many threads the process
/// has, and the resident split between anonymous memory and mapped files (`smaps_rollup`). Peak
/// resident growth alone cannot tell memory the receive path holds from memory the allocator
/// keeps after it was freed; this can.
enum AllocatorReport {
    static var isWanted: Bool { ProcessInfo.processInfo.environment["INGEST_ALLOCATOR_REPORT"] == "1" }

    /// One line: arenas, held, free within, threads, anonymous and file-backed resident.
    static func line() -> String {
        let arenas = mallocInfo()
        let threads = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task").count) ?? 0
        let rollup = smapsRollup()
        func megabytes(_ bytes: Int) -> String { String(format: "%.1f MB", Double(bytes) / 1e6) }
        return "allocator: \(arenas.count) arenas holding \(megabytes(arenas.held)), \(megabytes(arenas.free)) of it free, "
            + "\(megabytes(arenas.mapped)) in mmap'd blocks; \(threads) threads; resident anonymous "
            + "\(megabytes(rollup["Anonymous"] ?? 0)), file-backed \(megabytes((rollup["Rss"] ?? 0) - (rollup["Anonymous"] ?? 0)))"
    }

    /// Totals from `malloc_info`'s XML: the arenas' `<heap>` elements, the memory the system gave
    /// them (`system type="current"`), the free chunks in them (`total type="fast"` and `"rest"`),
    /// and the blocks mapped on their own (`total type="mmap"`).
    private static func mallocInfo() -> (count: Int, held: Int, free: Int, mapped: Int) {
        #if canImport(Glibc)
        typealias Info = @convention(c) (Int32, UnsafeMutablePointer<FILE>?) -> Int32
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "malloc_info") else { return (0, 0, 0, 0) }
        var buffer: UnsafeMutablePointer<CChar>?
        var length = 0
        guard let stream = open_memstream(&buffer, &length) else { return (0, 0, 0, 0) }
        _ = unsafeBitCast(symbol, to: Info.self)(0, stream)
        fclose(stream)
        guard let buffer else { return (0, 0, 0, 0) }
        defer { free(buffer) }
        let xml = String(cString: buffer)
        // The summary after the last </heap> holds the process-wide totals.
        let tail = xml.components(separatedBy: "</heap>").last ?? ""
        func size(of element: String, in text: String) -> Int {
            guard let range = text.range(of: element) else { return 0 }
            let rest = text[range.upperBound...]
            guard let sizeRange = rest.range(of: "size=\"") else { return 0 }
            return Int(rest[sizeRange.upperBound...].prefix(while: \.isNumber)) ?? 0
        }
        let heaps = xml.components(separatedBy: "<heap nr=").count - 1
        let free = size(of: "<total type=\"fast\"", in: tail) + size(of: "<total type=\"rest\"", in: tail)
        return (heaps, size(of: "<system type=\"current\"", in: tail), free, size(of: "<total type=\"mmap\"", in: tail))
        #else
        return (0, 0, 0, 0)
        #endif
    }

    /// `/proc/self/smaps_rollup`'s fields in bytes.
    private static func smapsRollup() -> [String: Int] {
        guard let text = try? String(contentsOfFile: "/proc/self/smaps_rollup", encoding: .utf8) else { return [:] }
        var fields: [String: Int] = [:]
        for line in text.split(separator: "\n") {
            let parts = line.split(separator: " ", omittingEmptySubsequences: true)
            guard parts.count >= 2, parts[0].hasSuffix(":"), let kilobytes = Int(parts[1]) else { continue }
            fields[String(parts[0].dropLast())] = kilobytes * 1024
        }
        return fields
    }
}
