import E2EECrypto
import Foundation
import Testing

/// Runs every Wycheproof-format file under `TestVectors/` whose algorithm has a runner.
@Suite("Published test vectors")
struct ConformanceTests {
    /// The algorithms the foundation promises to prove on published vectors; each must have
    /// at least one file with at least one vector, so an emptied folder cannot pass.
    static let requiredAlgorithms: Set<String> = [
        "XDH", "XDH-ITERATED", "EDDSA", "HKDF-SHA-256", "HMACSHA256", "AES-GCM",
        "XCHACHA20-POLY1305", "ARGON2ID", "SHA-256", "SHA-512",
    ]

    static func files() throws -> [VectorFile] {
        try VectorFile.all().filter { Runners.runner(for: $0.algorithm) != nil }
    }

    @Test("Every required algorithm has vectors")
    func everyRequiredAlgorithmHasVectors() throws {
        let counts = Dictionary(try Self.files().map { ($0.algorithm, $0.cases.count) }, uniquingKeysWith: +)
        for algorithm in Self.requiredAlgorithms.sorted() {
            #expect((counts[algorithm] ?? 0) > 0, "no vectors for \(algorithm)")
        }
    }

    @Test("Vector file agrees with the implementation", arguments: try files())
    func vectorFile(_ file: VectorFile) throws {
        let runner = try #require(Runners.runner(for: file.algorithm))
        var passed = 0, skipped = 0
        var byResult: [ExpectedResult: Int] = [:]
        for vector in file.cases {
            let verdict: Verdict
            do {
                verdict = Verdict(attempt: try runner.attempt(vector), expected: vector.result)
            } catch {
                verdict = .failed("malformed vector: \(error)")
            }
            switch verdict {
            case .passed:
                passed += 1
                byResult[vector.result, default: 0] += 1
            case .skipped:
                skipped += 1
            case .failed(let why):
                Issue.record("\(file.name) tcId \(vector.tcId) (\(vector.comment)): \(why)")
            }
        }
        #expect(passed > 0, "\(file.name) ran no vector")
        let summary = [ExpectedResult.valid, .invalid, .acceptable].map { "\($0.rawValue) \(byResult[$0] ?? 0)" }
        print("conformance: \(file.algorithm) \(file.name): \(passed) passed (\(summary.joined(separator: ", "))), \(skipped) skipped for unsupported parameters")
    }
}
