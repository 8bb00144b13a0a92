import Foundation

/// One vector that did not agree with the implementation.
public struct VectorFailure: Sendable, Equatable {
    /// The case id.
    public let tcId: Int
    /// The case comment.
    public let comment: String
    /// What went wrong.
    public let reason: String
}

/// What running one vector file produced.
public struct VectorFileReport: Sendable, Equatable {
    /// How the file was handled.
    public enum Outcome: Sendable, Equatable {
        /// Every case was judged (or skipped for unsupported parameters).
        case ran
        /// No runner in this library for its algorithm: an algorithm it does not know (every
        /// committed file, primitive or protocol, has a runner).
        case noRunner
        /// The file is JSON in Wycheproof's layout but a case could not be read, or the file
        /// could not be read at all.
        case unreadable(String)
    }

    /// The file's path relative to the folder that was verified.
    public let path: String
    /// The file's `algorithm` (empty when unreadable).
    public let algorithm: String
    /// How many cases the file has.
    public let cases: Int
    /// Cases that agreed.
    public let passed: Int
    /// Cases that disagreed (details in ``failures``).
    public let failed: Int
    /// Cases with unsupported parameters, or every case of a file without a runner.
    public let skipped: Int
    /// The disagreeing cases.
    public let failures: [VectorFailure]
    /// How the file was handled.
    public let outcome: Outcome

    /// Whether the file counts against a verification: a failed case, an unreadable file, or
    /// a file with a runner that ran no case.
    public var isFailure: Bool {
        switch outcome {
        case .ran: failed > 0 || passed == 0
        case .noRunner: false
        case .unreadable: true
        }
    }
}

/// Runs every Wycheproof-format file of a folder through the runners of ``Runners``.
public enum VectorVerifier {
    /// Reports for every `*.json` file under `folder` in Wycheproof's layout, sorted by path.
    /// JSON files in another layout (for instance a schema) are left out.
    public static func verify(folder: URL) -> [VectorFileReport] {
        let root = folder.standardizedFileURL.path
        return VectorFile.jsonFiles(in: folder).compactMap { url in
            let full = url.standardizedFileURL.path
            let relative = full.hasPrefix(root + "/") ? String(full.dropFirst(root.count + 1)) : url.lastPathComponent
            do {
                guard let file = try VectorFile.load(url) else { return nil }
                return verify(file, path: relative)
            } catch {
                return VectorFileReport(path: relative, algorithm: "", cases: 0, passed: 0, failed: 0, skipped: 0, failures: [],
                                        outcome: .unreadable(String(describing: error)))
            }
        }
    }

    /// Runs every case of `file`; `path` names it in the report.
    public static func verify(_ file: VectorFile, path: String? = nil) -> VectorFileReport {
        let name = path ?? file.name
        guard let runner = Runners.runner(for: file.algorithm) else {
            return VectorFileReport(path: name, algorithm: file.algorithm, cases: file.cases.count, passed: 0, failed: 0,
                                    skipped: file.cases.count, failures: [], outcome: .noRunner)
        }
        var passed = 0, skipped = 0
        var failures: [VectorFailure] = []
        for vector in file.cases {
            let verdict: Verdict
            do {
                verdict = Verdict(attempt: try runner.attempt(vector), expected: vector.result)
            } catch {
                verdict = .failed("malformed vector: \(error)")
            }
            switch verdict {
            case .passed: passed += 1
            case .skipped: skipped += 1
            case .failed(let why): failures.append(VectorFailure(tcId: vector.tcId, comment: vector.comment, reason: why))
            }
        }
        return VectorFileReport(path: name, algorithm: file.algorithm, cases: file.cases.count, passed: passed, failed: failures.count,
                                skipped: skipped, failures: failures, outcome: .ran)
    }
}
