import E2EEConformance
import E2EETestSupport
import Foundation
import Testing

extension ToolTests {
    /// `vectors verify` over the committed vectors and over a corrupted copy.
    @Suite("vectors")
    struct VectorsCommandTests {
        static let environment: [String: String] = [:]

        @Test("vectors verify on TestVectors/ exits 0 and lists every file")
        func committedVectors() async throws {
            let run = try await ToolProcess.run(["vectors", "verify", RepositoryPaths.testVectors.path], environment: Self.environment,
                                                in: RepositoryPaths.root)
            #expect(run.status == 0, "\(run.summary)")
            let files = try VectorFile.all(in: RepositoryPaths.testVectors)
            #expect(files.count >= 18)
            let root = RepositoryPaths.testVectors.standardizedFileURL.path + "/"
            for file in files {
                let relative = file.url.standardizedFileURL.path.replacingOccurrences(of: root, with: "")
                #expect(run.stdout.contains(relative), "\(relative) missing from the table")
            }
            #expect(run.stdout.contains("all \(files.count) files ok"), "\(run.summary)")
        }

        @Test("--json parses, names every file and counts every case")
        func json() async throws {
            let run = try await ToolProcess.run(["vectors", "verify", RepositoryPaths.testVectors.path, "--json"], environment: Self.environment,
                                                in: RepositoryPaths.root)
            #expect(run.status == 0, "\(run.summary)")
            let json = try run.json()
            #expect(json["ok"] as? Bool == true)
            let rows = try #require(json["files"] as? [[String: Any]])
            let files = try VectorFile.all(in: RepositoryPaths.testVectors)
            #expect(rows.count == files.count)
            for row in rows {
                let cases = try #require(row["cases"] as? Int)
                let counted = (row["passed"] as? Int ?? -1) + (row["failed"] as? Int ?? -1) + (row["skipped"] as? Int ?? -1)
                #expect(counted == cases, "\(row["file"] ?? "?")")
            }
            // The protocol files E2EECrypto's public API replays alone are run, the others listed.
            for name in ["protocol/payload_test.json", "protocol/safety_numbers_test.json", "protocol/sender_key_chain_test.json"] {
                let row = try #require(rows.first { $0["file"] as? String == name }, "\(name)")
                #expect(row["status"] as? String == "ok" && (row["passed"] as? Int ?? 0) > 0, "\(name)")
            }
            let x3dh = try #require(rows.first { $0["file"] as? String == "protocol/x3dh_test.json" })
            #expect(x3dh["status"] as? String == "not run here (ProtocolReplayTests)")
            let algorithms = try #require(json["algorithms"] as? [[String: Any]])
            #expect(Set(algorithms.compactMap { $0["algorithm"] as? String }).isSuperset(of: ["XDH", "EDDSA", "AES-GCM", "ARGON2ID", "SHA-512"]))
        }

        @Test("a corrupted expected output fails its file: exit 9 and the case named")
        func corruptedVector() async throws {
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("e2ee-vectors-\(UUID().uuidString)", isDirectory: true)
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: directory) }
            let source = RepositoryPaths.testVectors.appendingPathComponent("hkdf_sha256_rfc5869_test.json")
            try FileManager.default.copyItem(at: source, to: directory.appendingPathComponent("hkdf_ok_test.json"))
            var root = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: source)) as? [String: Any])
            var groups = try #require(root["testGroups"] as? [[String: Any]])
            var tests = try #require(groups[0]["tests"] as? [[String: Any]])
            let okm = try #require(tests[0]["okm"] as? String)
            #expect(tests[0]["result"] as? String == "valid")
            tests[0]["okm"] = (okm.first == "0" ? "1" : "0") + okm.dropFirst()
            groups[0]["tests"] = tests
            root["testGroups"] = groups
            try JSONSerialization.data(withJSONObject: root).write(to: directory.appendingPathComponent("hkdf_broken_test.json"))

            let run = try await ToolProcess.run(["vectors", "verify", directory.path], environment: Self.environment, in: directory)
            #expect(run.status == 9, "\(run.summary)")
            #expect(run.stdout.contains("hkdf_broken_test.json: 1 failing"), "\(run.summary)")
            #expect(run.stdout.contains("1 of 2 files FAILED"), "\(run.summary)")
        }
    }
}
