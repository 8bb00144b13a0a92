/// Generates the protocol vectors of `TestVectors/protocol/` (README there) from our own code
/// with seeded randomness. The same inputs always give the same bytes.
///
/// Regenerate with `E2EE_WRITE_PROTOCOL_VECTORS=1 swift test --filter ProtocolVectorGenerationTests`;
/// without the variable the conformance test requires the committed files to equal these.
public enum ProtocolVectorGenerator {
    /// One generated file.
    public struct File: Sendable {
        /// Name inside `TestVectors/protocol/`.
        public let name: String
        /// The exact bytes to commit.
        public let bytes: [UInt8]
        /// Valid and invalid test counts.
        public let valid: Int, invalid: Int
    }

    /// Every file, in a fixed order.
    /// - Throws: ``GeneratorError`` when our code does not behave as a vector needs, or the
    ///   protocol errors of an unexpected failure.
    public static func generateAll() throws -> [File] {
        let builders = [
            try X3DHVectors.build(), try RatchetVectors.build(), try SenderKeyChainVectors.build(),
            try EnvelopeVectors.build(), try PayloadVectors.build(), try SafetyNumberVectors.build(), try RecordVectors.build(),
            try LinkVectors.build(),
        ]
        return builders.map { builder in
            let summary = builder.summary
            return File(name: builder.fileName, bytes: builder.json.document(), valid: summary.valid, invalid: summary.invalid)
        }
    }
}
