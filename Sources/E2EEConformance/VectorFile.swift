import Foundation

/// What a vector says the implementation must do with it (Wycheproof's `result`).
public enum ExpectedResult: String, Sendable {
    /// Must be accepted with the expected output.
    case valid
    /// Must be refused (or produce something else).
    case invalid
    /// Either outcome is allowed.
    case acceptable
}

/// Why a field could not be read from a vector.
public struct VectorFieldError: Error, CustomStringConvertible {
    /// The field's name.
    public let field: String
    /// Creates the error for `field`.
    public init(field: String) { self.field = field }
    /// A readable text.
    public var description: String { "missing or malformed field '\(field)'" }
}

/// One test case with its group's parameters.
public struct VectorCase: Sendable {
    /// The file's `algorithm`.
    public let algorithm: String
    /// The case id.
    public let tcId: Int
    /// The case comment.
    public let comment: String
    /// What the implementation must do.
    public let result: ExpectedResult
    /// The whole test object.
    public let fields: JSONValue
    /// The whole test group object (its parameters).
    public let group: JSONValue

    /// The field `name` decoded from hex.
    /// - Throws: ``VectorFieldError`` when it is missing or not hex.
    public func hex(_ name: String) throws -> [UInt8] {
        guard let text = fields[name]?.string, let bytes = HexText.decode(text) else { throw VectorFieldError(field: name) }
        return bytes
    }

    /// The integer field `name`.
    /// - Throws: ``VectorFieldError`` when it is missing or not an integer.
    public func int(_ name: String) throws -> Int {
        guard let value = fields[name]?.int else { throw VectorFieldError(field: name) }
        return value
    }

    /// The integer group parameter `name`, if present.
    public func groupInt(_ name: String) -> Int? { group[name]?.int }
}

/// A Wycheproof-format vector file.
public struct VectorFile: Sendable {
    /// Where it was read from.
    public let url: URL
    /// Its top-level `algorithm`.
    public let algorithm: String
    /// Every case of every group, in file order.
    public let cases: [VectorCase]

    /// The file name.
    public var name: String { url.lastPathComponent }

    /// Every `*.json` file under `folder` (recursively) that has a top-level `algorithm` and
    /// `testGroups`, sorted by path.
    /// - Throws: when a file cannot be read or is not JSON, ``VectorFieldError`` for a case
    ///   without `tcId` or `result`.
    public static func all(in folder: URL) throws -> [VectorFile] {
        try jsonFiles(in: folder).compactMap { try load($0) }
    }

    /// Every `*.json` file under `folder` (recursively), sorted by path.
    public static func jsonFiles(in folder: URL) -> [URL] {
        guard let enumerator = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil) else { return [] }
        var files: [URL] = []
        for case let url as URL in enumerator where url.pathExtension == "json" {
            files.append(url)
        }
        return files.sorted { $0.path < $1.path }
    }

    /// The file at `url`, or `nil` when it is not in Wycheproof's layout.
    /// - Throws: when it cannot be read or is not JSON, ``VectorFieldError`` for a case without
    ///   `tcId` or `result`.
    public static func load(_ url: URL) throws -> VectorFile? {
        let root = try JSONValue.parse(Data(contentsOf: url))
        guard let algorithm = root["algorithm"]?.string, let groups = root["testGroups"]?.array else { return nil }
        var cases: [VectorCase] = []
        for group in groups {
            for test in group["tests"]?.array ?? [] {
                guard let tcId = test["tcId"]?.int,
                      let result = test["result"]?.string.flatMap(ExpectedResult.init(rawValue:)) else {
                    throw VectorFieldError(field: "tcId/result in \(url.lastPathComponent)")
                }
                cases.append(VectorCase(algorithm: algorithm, tcId: tcId, comment: test["comment"]?.string ?? "", result: result,
                                        fields: test, group: group))
            }
        }
        return VectorFile(url: url, algorithm: algorithm, cases: cases)
    }
}

/// Hex text of vector files (either case), decoded without trapping on bad input.
public enum HexText {
    /// The bytes of `text`, or `nil` for an odd length or a character outside 0-9, a-f, A-F.
    public static func decode(_ text: String) -> [UInt8]? {
        let digits = Array(text.utf8)
        guard digits.count % 2 == 0 else { return nil }
        var bytes = [UInt8]()
        bytes.reserveCapacity(digits.count / 2)
        var index = 0
        while index < digits.count {
            guard let high = value(of: digits[index]), let low = value(of: digits[index + 1]) else { return nil }
            bytes.append(high << 4 | low)
            index += 2
        }
        return bytes
    }

    private static func value(of digit: UInt8) -> UInt8? {
        switch digit {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): digit - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): digit - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): digit - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
