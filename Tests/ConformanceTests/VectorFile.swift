import E2EETestSupport
import Foundation
import Testing

/// What a vector says the implementation must do with it (Wycheproof's `result`).
enum ExpectedResult: String, Sendable {
    case valid, invalid, acceptable
}

/// Why a field could not be read from a vector.
struct VectorFieldError: Error, CustomStringConvertible {
    let field: String
    var description: String { "missing or malformed field '\(field)'" }
}

/// One test case with its group's parameters.
struct VectorCase: Sendable {
    let algorithm: String
    let tcId: Int
    let comment: String
    let result: ExpectedResult
    let fields: JSONValue
    let group: JSONValue

    func hex(_ name: String) throws -> [UInt8] {
        guard let text = fields[name]?.string else { throw VectorFieldError(field: name) }
        return try Hex.decode(text)
    }

    func int(_ name: String) throws -> Int {
        guard let value = fields[name]?.int else { throw VectorFieldError(field: name) }
        return value
    }

    func groupInt(_ name: String) -> Int? { group[name]?.int }
}

/// A Wycheproof-format vector file.
struct VectorFile: Sendable, CustomTestStringConvertible {
    let url: URL
    let algorithm: String
    let cases: [VectorCase]

    var name: String { url.lastPathComponent }
    var testDescription: String { name }

    /// Every `*.json` file under `TestVectors/` that has a top-level `algorithm` and `testGroups`.
    static func all(in folder: URL = RepositoryPaths.testVectors) throws -> [VectorFile] {
        let manager = FileManager.default
        guard let enumerator = manager.enumerator(at: folder, includingPropertiesForKeys: nil) else { return [] }
        var files: [VectorFile] = []
        for case let url as URL in enumerator where url.pathExtension == "json" {
            if let file = try load(url) { files.append(file) }
        }
        return files.sorted { $0.url.path < $1.url.path }
    }

    /// The file at `url`, or `nil` when it is not in Wycheproof's layout.
    static func load(_ url: URL) throws -> VectorFile? {
        let root = try JSONDecoder().decode(JSONValue.self, from: Data(contentsOf: url))
        guard let algorithm = root["algorithm"]?.string, let groups = root["testGroups"]?.array else { return nil }
        var cases: [VectorCase] = []
        for group in groups {
            for test in group["tests"]?.array ?? [] {
                guard let tcId = test["tcId"]?.int,
                      let result = test["result"]?.string.flatMap(ExpectedResult.init(rawValue:)) else {
                    throw VectorFieldError(field: "tcId/result in \(url.lastPathComponent)")
                }
                cases.append(VectorCase(algorithm: algorithm, tcId: tcId, comment: test["comment"]?.string ?? "", result: result, fields: test, group: group))
            }
        }
        return VectorFile(url: url, algorithm: algorithm, cases: cases)
    }
}
