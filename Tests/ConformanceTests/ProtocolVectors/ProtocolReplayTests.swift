import E2EEConformance
import Testing

/// Replays each committed protocol vector file through the runners `e2ee-tool vectors verify`
/// uses: outputs are recomputed, conversations are decrypted event by event, and every invalid
/// case must be refused with the `failure` the file names while leaving state byte-identical.
@Suite("Protocol vectors: replay")
struct ProtocolReplayTests {
    /// Verifies `TestVectors/protocol/<name>` and requires every case to pass, with at least
    /// `valid` valid and `invalid` invalid cases.
    static func replay(_ name: String, valid: Int, invalid: Int) throws {
        let url = ProtocolVectorGenerationTests.folder.appendingPathComponent(name)
        let file = try #require(try VectorFile.load(url), "\(name) is not in the Wycheproof layout")
        let report = VectorVerifier.verify(file)
        #expect(report.outcome == .ran, "\(name): \(report.outcome)")
        #expect(report.cases == file.cases.count && report.passed == report.cases, "\(name): \(report.failures)")
        #expect(report.failed == 0 && report.skipped == 0 && !report.isFailure, "\(name): \(report.failures)")
        #expect(file.cases.count(where: { $0.result == .valid }) >= valid, "\(name): too few valid cases")
        #expect(file.cases.count(where: { $0.result == .invalid }) >= invalid, "\(name): too few invalid cases")
        print("protocol vectors: \(file.algorithm) \(name): \(report.passed) of \(report.cases) cases passed")
    }

    @Test("x3dh_test.json")
    func x3dh() throws { try Self.replay("x3dh_test.json", valid: 2, invalid: 1) }

    /// Its invalid receives are events inside valid conversations.
    @Test("double_ratchet_test.json")
    func doubleRatchet() throws {
        try Self.replay("double_ratchet_test.json", valid: 2, invalid: 0)
        let url = ProtocolVectorGenerationTests.folder.appendingPathComponent("double_ratchet_test.json")
        let file = try #require(try VectorFile.load(url))
        let invalidEvents = file.cases.flatMap { $0.fields["events"]?.array ?? [] }.count(where: { $0["result"]?.string == "invalid" })
        #expect(invalidEvents > 0)
    }

    @Test("envelopes_test.json")
    func envelopes() throws { try Self.replay("envelopes_test.json", valid: 3, invalid: 1) }

    @Test("sender_key_chain_test.json")
    func senderKeyChain() throws { try Self.replay("sender_key_chain_test.json", valid: 2, invalid: 0) }

    /// Both group types: halves from devices (§7.4) and under user keys (§10.18, B.5), the
    /// latter with upper-case user ids that give the same outputs as their lower-case form.
    @Test("safety_numbers_test.json")
    func safetyNumbers() throws {
        try Self.replay("safety_numbers_test.json", valid: 7, invalid: 2)
        let url = ProtocolVectorGenerationTests.folder.appendingPathComponent("safety_numbers_test.json")
        let file = try #require(try VectorFile.load(url))
        let underKeys = file.cases.filter { $0.group["type"]?.string == "SafetyNumberUserKeyTest" }
        #expect(underKeys.count(where: { $0.result == .valid }) >= 5 && underKeys.count(where: { $0.result == .invalid }) >= 2)
        #expect(file.cases.count(where: { $0.group["type"]?.string == "SafetyNumberTest" }) >= 3)
        let keyOnBothSides = underKeys.filter { (try? $0.text("userKeyA").isEmpty == false && $0.text("userKeyB").isEmpty == false) ?? false }
        #expect(keyOnBothSides.contains { $0.result == .valid })
        let upperCase = try #require(underKeys.first { (try? $0.text("userA")).map { $0 != $0.lowercased() } ?? false })
        let lowerCase = try #require(underKeys.first { (try? $0.text("userA")) == (try? upperCase.text("userA").lowercased()) })
        for output in ["fingerprintA", "fingerprintB", "safetyNumber", "scannableForm"] {
            #expect(try upperCase.text(output) == lowerCase.text(output) && !upperCase.text(output).isEmpty, "\(output)")
        }
    }

    @Test("payload_test.json")
    func payloads() throws { try Self.replay("payload_test.json", valid: 1, invalid: 1) }

    @Test("records_test.json")
    func records() throws { try Self.replay("records_test.json", valid: 5, invalid: 12) }

    /// Every group type of the link file: codes, primary_sig, plaintexts, envelopes, records, chunks.
    @Test("link_test.json")
    func link() throws {
        try Self.replay("link_test.json", valid: 40, invalid: 60)
        let url = ProtocolVectorGenerationTests.folder.appendingPathComponent("link_test.json")
        let file = try #require(try VectorFile.load(url))
        let types = Set(file.cases.compactMap { $0.group["type"]?.string })
        #expect(types == ["LinkCodeTest", "PrimarySignatureTest", "LinkPlaintextTest", "LinkEnvelopeTest", "TransferRecordTest", "TransferChunkTest"])
    }
}
