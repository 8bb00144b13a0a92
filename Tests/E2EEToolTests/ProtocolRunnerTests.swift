import E2EEConformance
import E2EETestSupport
import Foundation
import Testing

/// The protocol-file runners `vectors verify` uses must catch a wrong expected value, not only
/// pass the committed files.
@Suite("Protocol vector runners")
struct ProtocolRunnerTests {
    /// Writes `file` from `TestVectors/protocol/` with `edit` applied to its first test, then
    /// verifies it.
    static func verifyEdited(_ file: String, _ edit: (inout [String: Any]) throws -> Void) throws -> VectorFileReport {
        let source = RepositoryPaths.testVectors.appendingPathComponent("protocol/\(file)")
        var root = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: source)) as? [String: Any])
        var groups = try #require(root["testGroups"] as? [[String: Any]])
        var tests = try #require(groups[0]["tests"] as? [[String: Any]])
        try edit(&tests[0])
        groups[0]["tests"] = tests
        root["testGroups"] = groups
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("e2ee-runners-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent(file)
        try JSONSerialization.data(withJSONObject: root).write(to: url)
        return VectorVerifier.verify(try #require(try VectorFile.load(url)))
    }

    /// `hex` with its first digit changed.
    static func flipped(_ hex: String) -> String { (hex.first == "0" ? "1" : "0") + hex.dropFirst() }

    @Test("a wrong fingerprint fails the safety-number file")
    func safetyNumber() throws {
        let report = try Self.verifyEdited("safety_numbers_test.json") { test in
            let fingerprint = try #require(test["fingerprintA"] as? String)
            test["fingerprintA"] = Self.flipped(fingerprint)
        }
        #expect(report.outcome == .ran)
        #expect(report.failed == 1 && report.failures.first?.reason.contains("fingerprintA") == true, "\(report)")
    }

    @Test("a wrong canonical encoding fails the payload file; an invalid payload marked valid is caught too")
    func payload() throws {
        let wrongEncoding = try Self.verifyEdited("payload_test.json") { test in
            #expect(test["result"] as? String == "valid")
            let encoded = try #require(test["encoded"] as? String)
            test["encoded"] = Self.flipped(encoded)
        }
        #expect(wrongEncoding.failed == 1, "\(wrongEncoding)")

        // A well-formed payload presented as invalid: the runner must report it accepted.
        let acceptedInvalid = try Self.verifyEdited("payload_test.json") { test in test["result"] = "invalid" }
        #expect(acceptedInvalid.failed == 1 && acceptedInvalid.failures.first?.reason == "an invalid vector was accepted", "\(acceptedInvalid)")
    }

    @Test("a wrong message key fails the sender-key chain file")
    func senderKeyChain() throws {
        let report = try Self.verifyEdited("sender_key_chain_test.json") { test in
            var iterations = try #require(test["iterations"] as? [[String: Any]])
            let key = try #require(iterations[0]["messageKey"] as? String)
            iterations[0]["messageKey"] = Self.flipped(key)
            test["iterations"] = iterations
        }
        #expect(report.failed == 1, "\(report)")
    }
}
