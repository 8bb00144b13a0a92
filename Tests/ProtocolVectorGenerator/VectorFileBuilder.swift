/// One test of a vector file before `tcId` is assigned.
public struct VectorTest: Sendable {
    /// Wycheproof group `type` this test belongs to.
    public var groupType: String
    /// Human description.
    public var comment: String
    /// Flags (only for invalid tests; each is explained in the file's notes).
    public var flags: [String]
    /// The test's own fields, in README order.
    public var fields: JSONObjectBuilder
    /// `nil` for a valid test, else the `ProtocolError` case name the refusal carries.
    public var failure: String?

    /// A test.
    public init(groupType: String, comment: String, flags: [String] = [], fields: JSONObjectBuilder, failure: String? = nil) {
        self.groupType = groupType
        self.comment = comment
        self.flags = flags
        self.fields = fields
        self.failure = failure
    }
}

/// A whole Wycheproof-layout file: consecutive tests of one group type form one group, and
/// `tcId` runs 1…`numberOfTests` in file order.
public struct VectorFileBuilder: Sendable {
    /// File name inside `TestVectors/protocol/`.
    public let fileName: String
    let algorithm: String
    let schema: String
    let header: [String]
    var notes: [(String, String)] = []
    var tests: [VectorTest] = []

    /// A file with no tests yet.
    public init(fileName: String, algorithm: String, header: [String]) {
        self.fileName = fileName
        self.algorithm = algorithm
        self.schema = (fileName.hasSuffix("_test.json") ? String(fileName.dropLast(10)) : fileName) + "_schema.json"
        self.header = header
    }

    /// Explains a flag (kept in first-use order).
    public mutating func note(_ flag: String, _ meaning: String) {
        guard !notes.contains(where: { $0.0 == flag }) else { return }
        notes.append((flag, meaning))
    }

    /// Appends a test.
    public mutating func add(_ test: VectorTest) { tests.append(test) }

    /// Number of tests so far.
    public var count: Int { tests.count }

    /// The file's JSON.
    public var json: VectorJSON {
        var root = JSONObjectBuilder()
        root.set("algorithm", algorithm)
        root.set("schema", schema)
        root.set("numberOfTests", tests.count)
        root.set("header", .array(header.map { .string($0) }))
        root.set("notes", .object(notes.map { ($0.0, .string($0.1)) }))
        var source = JSONObjectBuilder()
        source.set("document", "PROTOCOL.md version 1 (docs/spec/protocol.md)")
        source.set("package", "E2EECore (Tests/ProtocolVectorGenerator, seeded DeterministicRandom)")
        source.set("file", "TestVectors/protocol/" + fileName)
        source.set("verifiedWith", "Scripts/interop/verify_protocol_vectors.py (Python, cryptography/OpenSSL)")
        root.set("source", source.json)
        var groups: [VectorJSON] = []
        var currentType: String?
        var currentTests: [VectorJSON] = []
        func flush() {
            guard let type = currentType else { return }
            groups.append(.object([("type", .string(type)), ("tests", .array(currentTests))]))
        }
        for (index, test) in tests.enumerated() {
            if test.groupType != currentType {
                flush()
                currentType = test.groupType
                currentTests = []
            }
            var object = JSONObjectBuilder()
            object.set("tcId", index + 1)
            object.set("comment", test.comment)
            object.set("flags", .array(test.flags.map { .string($0) }))
            for (key, value) in test.fields.pairs { object.set(key, value) }
            object.set("result", test.failure == nil ? "valid" : "invalid")
            if let failure = test.failure { object.set("failure", failure) }
            currentTests.append(object.json)
        }
        flush()
        root.set("testGroups", .array(groups))
        return root.json
    }

    /// Counts for the conformance runner's summary line.
    public var summary: (valid: Int, invalid: Int) {
        (tests.filter { $0.failure == nil }.count, tests.filter { $0.failure != nil }.count)
    }
}
