import E2EEConformance
import E2EETestSupport
import Foundation
import Testing

/// The protocol-file runners `vectors verify` uses must catch a wrong expected value, not only
/// pass the committed files.
@Suite("Protocol vector runners")
struct ProtocolRunnerTests {
    /// Writes `file` from `TestVectors/protocol/` with `edit` applied to test `index` of its
    /// first group (or of the first group of type `groupType`), then verifies it.
    static func verifyEdited(_ file: String, groupType: String? = nil, test index: Int = 0,
                             _ edit: (inout [String: Any]) throws -> Void) throws -> VectorFileReport {
        let source = RepositoryPaths.testVectors.appendingPathComponent("protocol/\(file)")
        var root = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: source)) as? [String: Any])
        var groups = try #require(root["testGroups"] as? [[String: Any]])
        var group = 0
        if let groupType { group = try #require(groups.firstIndex { $0["type"] as? String == groupType }) }
        var tests = try #require(groups[group]["tests"] as? [[String: Any]])
        try #require(tests.indices.contains(index))
        try edit(&tests[index])
        groups[group]["tests"] = tests
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

    /// Edits test `index` of the safety-number file's `SafetyNumberUserKeyTest` group.
    static func verifyEditedUnderKey(test index: Int = 0, _ edit: (inout [String: Any]) throws -> Void) throws -> VectorFileReport {
        try verifyEdited("safety_numbers_test.json", groupType: "SafetyNumberUserKeyTest", test: index, edit)
    }

    @Test("under a user key: a wrong fingerprint or scannable form fails the safety-number file")
    func safetyNumberUnderUserKey() throws {
        for field in ["fingerprintA", "fingerprintB", "scannableForm"] {
            let report = try Self.verifyEditedUnderKey { test in
                #expect(test["result"] as? String == "valid" && (test["userKeyA"] as? String)?.isEmpty == false)
                let value = try #require(test[field] as? String)
                test[field] = Self.flipped(value)
            }
            #expect(report.outcome == .ran)
            #expect(report.failed == 1 && report.failures.first?.reason.hasPrefix("wrong output: \(field)") == true, "\(report)")
        }
        // The user-key half read as a device half: the key's owner given blobs too is a malformed case.
        let both = try Self.verifyEditedUnderKey { test in
            test["blobsA"] = test["blobsB"]
        }
        #expect(both.failed == 1 && both.failures.first?.reason.contains("both given") == true, "\(both)")
    }

    @Test("under a user key: a 31-byte key presented as valid, or refused for another reason, is caught")
    func safetyNumberRefusedKey() throws {
        let file = try #require(try VectorFile.load(RepositoryPaths.testVectors.appendingPathComponent("protocol/safety_numbers_test.json")))
        let underKeys = file.cases.filter { $0.group["type"]?.string == "SafetyNumberUserKeyTest" }
        let short = try #require(underKeys.firstIndex { $0.fields["flags"]?.array?.first?.string == "ShortUserKey" })
        let first = underKeys[0]
        let presentedValid = try Self.verifyEditedUnderKey(test: short) { test in
            #expect((test["userKeyA"] as? String)?.count == 62)
            test["result"] = "valid"
            test["flags"] = [String]()
            test.removeValue(forKey: "failure")
            for output in ["fingerprintA", "fingerprintB", "safetyNumber", "scannableForm"] { test[output] = try first.text(output) }
        }
        #expect(presentedValid.failed == 1 && presentedValid.failures.first?.reason.hasPrefix("a valid vector was refused") == true, "\(presentedValid)")

        let otherReason = try Self.verifyEditedUnderKey(test: short) { test in
            #expect(test["failure"] as? String == "malformed")
            test["failure"] = "invalidKey"
        }
        #expect(otherReason.failed == 1 && otherReason.failures.first?.reason == "refused as malformed, the vector says invalidKey", "\(otherReason)")

        // The key given its last byte back: the case is accepted, which an invalid case must not be.
        let repaired = try Self.verifyEditedUnderKey(test: short) { test in
            test["userKeyA"] = try first.text("userKeyA")
        }
        #expect(repaired.failed == 1 && repaired.failures.first?.reason == "accepted, the vector says malformed", "\(repaired)")
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
        let acceptedInvalid = try Self.verifyEdited("payload_test.json") { test in
            test["result"] = "invalid"
            test["failure"] = "malformed"
        }
        #expect(acceptedInvalid.failed == 1 && acceptedInvalid.failures.first?.reason == "accepted, the vector says malformed", "\(acceptedInvalid)")
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

    /// Flips `field` of the first (valid) test of `file`, then renames the `failure` of its
    /// invalid test `invalid`: each edit must fail exactly one case, for the right reason.
    static func expectTamperingCaught(_ file: String, field: String, invalid: Int) throws {
        let wrongOutput = try verifyEdited(file) { test in
            #expect(test["result"] as? String == "valid")
            let value = try #require(test[field] as? String)
            test[field] = flipped(value)
        }
        #expect(wrongOutput.outcome == .ran)
        #expect(wrongOutput.failed == 1 && wrongOutput.failures.first?.reason == "wrong output: \(field)", "\(wrongOutput)")

        let otherReason = try verifyEdited(file, test: invalid) { test in
            #expect(test["result"] as? String == "invalid" && test["failure"] as? String != "replay")
            test["failure"] = "replay"
        }
        #expect(otherReason.failed == 1 && otherReason.failures.first?.reason.contains(", the vector says replay") == true, "\(otherReason)")
    }

    @Test("a wrong shared secret fails the X3DH file; an invalid bundle refused for another reason is caught too")
    func x3dh() throws { try Self.expectTamperingCaught("x3dh_test.json", field: "sharedSecret", invalid: 2) }

    /// Edits event `index` of the first conversation of the Double Ratchet file.
    static func verifyEditedEvent(_ index: Int, _ edit: (inout [String: Any]) throws -> Void) throws -> VectorFileReport {
        try verifyEdited("double_ratchet_test.json") { test in
            var events = try #require(test["events"] as? [[String: Any]])
            try #require(events.indices.contains(index))
            try edit(&events[index])
            test["events"] = events
        }
    }

    @Test("a wrong sent message, or a receive refused for another reason, fails the Double Ratchet file")
    func doubleRatchet() throws {
        let wrongMessage = try Self.verifyEditedEvent(0) { event in
            #expect(event["event"] as? String == "send")
            let message = try #require(event["message"] as? String)
            event["message"] = Self.flipped(message)
        }
        #expect(wrongMessage.failed == 1 && wrongMessage.failures.first?.reason == "wrong output: event 0: message differs", "\(wrongMessage)")

        let otherReason = try Self.verifyEditedEvent(6) { event in
            #expect(event["result"] as? String == "invalid" && event["failure"] as? String == "badTag")
            event["failure"] = "truncated"
        }
        #expect(otherReason.failed == 1, "\(otherReason)")
        #expect(otherReason.failures.first?.reason.contains("event 6: refused as badTag, the vector says truncated") == true, "\(otherReason)")
    }

    @Test("a wrong payload fails the envelope file; a refusal for another reason is caught too")
    func envelopes() throws { try Self.expectTamperingCaught("envelopes_test.json", field: "payload", invalid: 2) }

    @Test("a wrong record or certification fails the records file; a refusal for another reason is caught too")
    func records() throws {
        try Self.expectTamperingCaught("records_test.json", field: "record", invalid: 6)
        // The certified case (the second) presented as uncertified.
        let wrongCertification = try Self.verifyEdited("records_test.json", test: 1) { test in
            #expect(test["certified"] as? Bool == true)
            test["certified"] = false
        }
        #expect(wrongCertification.failed == 1 && wrongCertification.failures.first?.reason == "wrong output: certified", "\(wrongCertification)")
    }

    @Test("the link file: a wrong code, field, digest or signature case, or a refusal for another reason, is caught")
    func link() throws {
        let file = "link_test.json"
        let code = try Self.verifyEdited(file, groupType: "LinkCodeTest") { test in
            test["codeN"] = Self.flipped(try #require(test["codeN"] as? String))
        }
        #expect(code.failed == 1 && code.failures.first?.reason == "wrong output: codeN", "\(code)")
        let field = try Self.verifyEdited(file, groupType: "LinkPlaintextTest") { test in
            var fields = try #require(test["fields"] as? [String: Any])
            fields["requestId"] = "00000000-0000-4000-8000-000000000000"
            test["fields"] = fields
        }
        #expect(field.failed == 1 && field.failures.first?.reason == "wrong output: fields", "\(field)")
        let record = try Self.verifyEdited(file, groupType: "TransferRecordTest") { test in
            var fields = try #require(test["fields"] as? [String: Any])
            fields["subKind"] = "channel"
            test["fields"] = fields
        }
        #expect(record.failed == 1 && record.failures.first?.reason == "wrong output: fields", "\(record)")
        let digest = try Self.verifyEdited(file, groupType: "TransferChunkTest") { test in
            test["digest"] = Self.flipped(try #require(test["digest"] as? String))
        }
        #expect(digest.failed == 1 && digest.failures.first?.reason == "wrong output: digest", "\(digest)")
        // The first altered primary_sig case given back its signed fields: it verifies.
        let signature = try Self.verifyEdited(file, groupType: "PrimarySignatureTest", test: 1) { test in
            #expect(test["result"] as? String == "invalid")
            let (sender, recipient) = (test["senderDeviceId"], test["recipientDeviceId"])
            test["senderDeviceId"] = recipient
            test["recipientDeviceId"] = sender
        }
        #expect(signature.failed == 1 && signature.failures.first?.reason == "an invalid vector was accepted", "\(signature)")
        let otherReason = try Self.verifyEdited(file, groupType: "TransferRecordTest", test: 16) { test in
            #expect(test["result"] as? String == "invalid")
            test["failure"] = "replay"
        }
        #expect(otherReason.failed == 1 && otherReason.failures.first?.reason.contains(", the vector says replay") == true, "\(otherReason)")
    }
}
