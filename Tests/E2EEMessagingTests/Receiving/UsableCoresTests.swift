@testable import E2EEMessaging
import Foundation
import Testing

@Suite("Usable cores")
struct UsableCoresTests {
    @Test("the count is at least one and never more than the machine's online cores")
    func boundedByTheMachine() {
        #expect(UsableCores.count >= 1)
        #expect(UsableCores.count <= ProcessInfo.processInfo.activeProcessorCount)
        #expect(UsableCores.current() >= 1)
    }

    @Test("the affinity mask's set bits are counted across its 32-bit groups; a missing or garbled mask is nil")
    func readsTheMask() {
        #expect(UsableCores.allowedCores(inStatus: "Name:\tx\nCpus_allowed:\t3\nCpus_allowed_list:\t0-1\n") == 2)
        #expect(UsableCores.allowedCores(inStatus: "Cpus_allowed:\t1\n") == 1)
        #expect(UsableCores.allowedCores(inStatus: "Cpus_allowed:\tff,ffffffff\n") == 40)
        #expect(UsableCores.allowedCores(inStatus: "Cpus_allowed:\t00000000,00000010\n") == 1)
        #expect(UsableCores.allowedCores(inStatus: "Cpus_allowed_list:\t0-3\n") == nil)
        #expect(UsableCores.allowedCores(inStatus: "Cpus_allowed:\tzz\n") == nil)
    }

    #if os(Linux)
    @Test("on Linux the count agrees with nproc, which honours the affinity the process runs under")
    func agreesWithNproc() throws {
        let nproc = URL(fileURLWithPath: "/usr/bin/nproc")
        try #require(FileManager.default.isExecutableFile(atPath: nproc.path))
        let process = Process()
        process.executableURL = nproc
        process.environment = [:]  // nproc also honours OMP_NUM_THREADS and OMP_THREAD_LIMIT
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        process.waitUntilExit()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let expected = try #require(Int(text.trimmingCharacters(in: .whitespacesAndNewlines)))
        #expect(UsableCores.current() == expected)
    }
    #endif
}
