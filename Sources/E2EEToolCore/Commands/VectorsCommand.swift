import ArgumentParser
import E2EEConformance
import Foundation

/// `e2ee-tool vectors verify [DIR]`.
struct VectorsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "vectors",
        abstract: "The conformance vectors.",
        subcommands: [Verify.self]
    )

    /// `vectors verify [DIR]`: every Wycheproof-format file through the E2EEConformance runners.
    struct Verify: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Run the vector files of a folder through E2EECrypto and print passed/failed/skipped per file and per algorithm.",
            discussion: """
                Runs the primitive files and every protocol file under protocol/ (X3DH, Double \
                Ratchet, envelopes, sender-key chain, safety numbers, payloads), with the checks \
                `swift test --filter ProtocolReplayTests` makes: an invalid case must be refused with \
                the failure it names. A file whose algorithm this tool does not know is listed as \
                not run. Exits 9 when a vector fails or a file cannot be read.
                """)

        @Argument(help: "The folder (default: ./TestVectors).")
        var directory = "TestVectors"

        @Flag(name: .long, help: "Machine output: one JSON document on standard output.")
        var json = false

        @Flag(name: .long, help: "List every failing vector, not only the first three of a file.")
        var verbose = false

        func run() async throws {
            ToolLogging.bootstrap(verbose: verbose)
            let console = Console(json: json)
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory), isDirectory.boolValue else {
                throw ToolError(.notFound, "no folder \(directory)")
            }
            console.progress("verifying the vector files in \(directory)…")
            let reports = VectorVerifier.verify(folder: URL(fileURLWithPath: directory, isDirectory: true))
            guard !reports.isEmpty else { throw ToolError(.notFound, "no vector file in \(directory)") }
            let table = VectorTable(reports: reports, allFailures: verbose)
            try console.result(table.result) { table.text }
            let failing = reports.filter(\.isFailure)
            if !failing.isEmpty {
                throw ToolError(.verificationFailed, "\(failing.count) of \(reports.count) files failed: " + failing.map(\.path).joined(separator: ", "),
                                resultWritten: true)
            }
        }
    }
}

/// The reports as text tables and JSON.
struct VectorTable {
    let reports: [VectorFileReport]
    let allFailures: Bool

    struct FileRow: Encodable {
        let file: String
        let algorithm: String
        let cases: Int
        let passed: Int
        let failed: Int
        let skipped: Int
        let status: String
        let failures: [FailureRow]
    }

    struct FailureRow: Encodable {
        let tcId: Int
        let comment: String
        let reason: String
        enum CodingKeys: String, CodingKey { case tcId = "tc_id", comment, reason }
    }

    struct AlgorithmRow: Encodable {
        let algorithm: String
        let files: Int
        let passed: Int
        let failed: Int
        let skipped: Int
    }

    struct Result: Encodable {
        let files: [FileRow]
        let algorithms: [AlgorithmRow]
        let ok: Bool
    }

    var fileRows: [FileRow] {
        reports.map { report in
            FileRow(file: report.path, algorithm: report.algorithm, cases: report.cases, passed: report.passed, failed: report.failed,
                    skipped: report.skipped, status: Self.status(report),
                    failures: report.failures.map { FailureRow(tcId: $0.tcId, comment: $0.comment, reason: $0.reason) })
        }
    }

    var algorithmRows: [AlgorithmRow] {
        let ran = reports.filter { $0.outcome == .ran }
        return Dictionary(grouping: ran, by: \.algorithm).map { algorithm, files in
            AlgorithmRow(algorithm: algorithm, files: files.count, passed: files.map(\.passed).reduce(0, +),
                         failed: files.map(\.failed).reduce(0, +), skipped: files.map(\.skipped).reduce(0, +))
        }.sorted { $0.algorithm < $1.algorithm }
    }

    var result: Result { Result(files: fileRows, algorithms: algorithmRows, ok: !reports.contains(where: \.isFailure)) }

    var text: String {
        let files = fileRows
        var lines = Self.render(
            header: ["file", "algorithm", "passed", "failed", "skipped", "status"],
            rows: files.map { [$0.file, $0.algorithm, "\($0.passed)", "\($0.failed)", "\($0.skipped)", $0.status] },
            rightAligned: [2, 3, 4])
        for row in files where !row.failures.isEmpty {
            lines.append("")
            lines.append("\(row.file): \(row.failed) failing")
            for failure in allFailures ? row.failures : Array(row.failures.prefix(3)) {
                lines.append("  tcId \(failure.tcId) (\(failure.comment)): \(failure.reason)")
            }
            if !allFailures && row.failures.count > 3 { lines.append("  … \(row.failures.count - 3) more (--verbose lists all)") }
        }
        lines.append("")
        lines += Self.render(
            header: ["algorithm", "files", "passed", "failed", "skipped"],
            rows: algorithmRows.map { [$0.algorithm, "\($0.files)", "\($0.passed)", "\($0.failed)", "\($0.skipped)"] },
            rightAligned: [1, 2, 3, 4])
        let failing = reports.filter(\.isFailure).count
        lines.append("")
        lines.append(failing == 0 ? "all \(reports.count) files ok" : "\(failing) of \(reports.count) files FAILED")
        return lines.joined(separator: "\n")
    }

    private static func status(_ report: VectorFileReport) -> String {
        switch report.outcome {
        case .ran: report.failed > 0 ? "FAILED" : (report.passed == 0 ? "FAILED (no vector ran)" : "ok")
        case .noRunner: "not run (unknown algorithm)"
        case .unreadable(let why): "UNREADABLE: \(why)"
        }
    }

    private static func render(header: [String], rows: [[String]], rightAligned: Set<Int>) -> [String] {
        let all = [header] + rows
        let widths = header.indices.map { column in all.map { $0[column].count }.max() ?? 0 }
        return all.map { row in
            row.enumerated().map { column, cell in
                let padding = String(repeating: " ", count: widths[column] - cell.count)
                return rightAligned.contains(column) ? padding + cell : cell + (column == row.count - 1 ? "" : padding)
            }.joined(separator: "  ")
        }
    }
}
