import E2EEConformance
import E2EECrypto
import E2EETestSupport
import Foundation
import Testing

/// Runs every Wycheproof-format file under `TestVectors/`, protocol files included; each must
/// have a runner (the runners live in `E2EEConformance`, shared with `e2ee-tool vectors verify`).
@Suite("Published test vectors")
struct ConformanceTests {
    /// The algorithms the foundation promises to prove on published vectors; each must have
    /// at least one file with at least one vector, so an emptied folder cannot pass.
    static let requiredAlgorithms: Set<String> = [
        "XDH", "XDH-ITERATED", "EDDSA", "HKDF-SHA-256", "HMACSHA256", "AES-GCM",
        "XCHACHA20-POLY1305", "ARGON2ID", "SHA-256", "SHA-512",
    ]

    /// The files are read once for the whole suite (several megabytes of JSON).
    private static let loaded = Result {
        try VectorFile.all(in: RepositoryPaths.testVectors)
    }

    static func files() throws -> [VectorFile] {
        try loaded.get()
    }

    @Test("Every required algorithm has vectors")
    func everyRequiredAlgorithmHasVectors() throws {
        let counts = Dictionary(try Self.files().map { ($0.algorithm, $0.cases.count) }, uniquingKeysWith: +)
        for algorithm in Self.requiredAlgorithms.sorted() {
            #expect((counts[algorithm] ?? 0) > 0, "no vectors for \(algorithm)")
        }
    }

    @Test("Vector file agrees with the implementation", arguments: try files().map(\.name))
    func vectorFile(_ name: String) throws {
        let file = try #require(try Self.files().first { $0.name == name })
        let report = VectorVerifier.verify(file)
        #expect(report.outcome == .ran)
        for failure in report.failures {
            Issue.record("\(file.name) tcId \(failure.tcId) (\(failure.comment)): \(failure.reason)")
        }
        #expect(report.passed > 0, "\(file.name) ran no vector")
        #expect(report.passed + report.failed + report.skipped == file.cases.count)
        print("conformance: \(file.algorithm) \(file.name): \(report.passed) passed, \(report.skipped) skipped for unsupported parameters")
    }
}
