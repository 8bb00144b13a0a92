import E2EEProtocolVectorGenerator
import E2EETestSupport
import Foundation
import Testing

/// The committed protocol vectors are exactly what the generator makes from our code, so they
/// can never drift from it. With `E2EE_WRITE_PROTOCOL_VECTORS=1` the test writes them instead
/// (the only way they are regenerated).
@Suite("Protocol vectors: generation")
struct ProtocolVectorGenerationTests {
    static let folder = RepositoryPaths.testVectors.appendingPathComponent("protocol", isDirectory: true)

    @Test("Committed files equal a fresh generation, byte for byte")
    func committedFilesMatchTheGenerator() throws {
        let files = try ProtocolVectorGenerator.generateAll()
        #expect(files.count == 8)
        let writing = ProcessInfo.processInfo.environment["E2EE_WRITE_PROTOCOL_VECTORS"] == "1"
        for file in files {
            let url = Self.folder.appendingPathComponent(file.name)
            if writing {
                try Data(file.bytes).write(to: url, options: .atomic)
                print("protocol vectors: wrote \(file.name): \(file.valid) valid, \(file.invalid) invalid")
                continue
            }
            let committed = try [UInt8](Data(contentsOf: url))
            // Compare as a Bool: printing two large byte arrays on failure helps nobody.
            let firstDifference = zip(committed, file.bytes).enumerated().first { $0.element.0 != $0.element.1 }?.offset ?? min(committed.count, file.bytes.count)
            let identical = committed == file.bytes
            #expect(identical, "\(file.name) differs from the generator at byte \(firstDifference) (committed \(committed.count) bytes, generated \(file.bytes.count)): regenerate with E2EE_WRITE_PROTOCOL_VECTORS=1")
        }
    }

    @Test("Two generations are byte-identical")
    func generationIsDeterministic() throws {
        let first = try ProtocolVectorGenerator.generateAll().map(\.bytes)
        let second = try ProtocolVectorGenerator.generateAll().map(\.bytes)
        let identical = first == second
        #expect(identical)
    }
}
