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
            #expect(!run.stdout.contains("not run"), "\(run.summary)")
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
            // Every file runs, protocol files included: none is skipped or left "not run".
            for row in rows {
                let name = row["file"] as? String ?? "?"
                #expect(row["status"] as? String == "ok" && (row["passed"] as? Int ?? 0) > 0, "\(name): \(row)")
            }
            for name in ["x3dh", "double_ratchet", "envelopes", "payload", "safety_numbers", "sender_key_chain"] {
                let row = try #require(rows.first { $0["file"] as? String == "protocol/\(name)_test.json" }, "\(name)")
                #expect(row["passed"] as? Int == row["cases"] as? Int && row["skipped"] as? Int == 0, "\(name): \(row)")
            }
            let algorithms = try #require(json["algorithms"] as? [[String: Any]])
            #expect(Set(algorithms.compactMap { $0["algorithm"] as? String }).isSuperset(of: ["XDH", "EDDSA", "AES-GCM", "ARGON2ID", "SHA-512"]))
        }

        /// Copies `file` of `TestVectors/` into `directory` as `name` with `edit` applied to the
        /// first test of its first group.
        static func writeEdited(_ file: String, to directory: URL, as name: String, _ edit: (inout [String: Any]) throws -> Void) throws {
            let source = RepositoryPaths.testVectors.appendingPathComponent(file)
            var root = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: source)) as? [String: Any])
            var groups = try #require(root["testGroups"] as? [[String: Any]])
            var tests = try #require(groups[0]["tests"] as? [[String: Any]])
            #expect(tests[0]["result"] as? String == "valid")
            try edit(&tests[0])
            groups[0]["tests"] = tests
            root["testGroups"] = groups
            try JSONSerialization.data(withJSONObject: root).write(to: directory.appendingPathComponent(name))
        }

        /// Changes the first hex digit of the string `field`.
        static func flip(_ field: String, in test: inout [String: Any]) throws {
            let hex = try #require(test[field] as? String)
            test[field] = (hex.first == "0" ? "1" : "0") + hex.dropFirst()
        }

        /// Runs `body` with a fresh temporary folder, removed afterwards.
        static func inTemporaryFolder(_ body: (URL) async throws -> Void) async throws {
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("e2ee-vectors-\(UUID().uuidString)", isDirectory: true)
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: directory) }
            try await body(directory)
        }

        @Test("a corrupted expected output fails its file: exit 9 and the case named")
        func corruptedVector() async throws {
            try await Self.inTemporaryFolder { directory in
                let source = RepositoryPaths.testVectors.appendingPathComponent("hkdf_sha256_rfc5869_test.json")
                try FileManager.default.copyItem(at: source, to: directory.appendingPathComponent("hkdf_ok_test.json"))
                try Self.writeEdited("hkdf_sha256_rfc5869_test.json", to: directory, as: "hkdf_broken_test.json") { try Self.flip("okm", in: &$0) }

                let run = try await ToolProcess.run(["vectors", "verify", directory.path], environment: Self.environment, in: directory)
                #expect(run.status == 9, "\(run.summary)")
                #expect(run.stdout.contains("hkdf_broken_test.json: 1 failing"), "\(run.summary)")
                #expect(run.stdout.contains("1 of 2 files FAILED"), "\(run.summary)")
            }
        }

        @Test("a tampered protocol file (X3DH shared secret) fails: exit 9 and the case named")
        func tamperedProtocolVector() async throws {
            try await Self.inTemporaryFolder { directory in
                try Self.writeEdited("protocol/x3dh_test.json", to: directory, as: "x3dh_tampered_test.json") { try Self.flip("sharedSecret", in: &$0) }

                let run = try await ToolProcess.run(["vectors", "verify", directory.path], environment: Self.environment, in: directory)
                #expect(run.status == 9, "\(run.summary)")
                #expect(run.stdout.contains("x3dh_tampered_test.json: 1 failing"), "\(run.summary)")
                #expect(run.stdout.contains("sharedSecret"), "\(run.summary)")
                #expect(run.stdout.contains("1 of 1 files FAILED"), "\(run.summary)")
            }
        }
    }
}
