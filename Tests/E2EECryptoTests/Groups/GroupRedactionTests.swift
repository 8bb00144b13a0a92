import E2EECrypto
import E2EETestSupport
import Testing

@Suite("No secret in any description or error text")
struct GroupRedactionTests {
    /// Every way a value can be turned into text by accident.
    func renderings(_ value: Any) -> [String] {
        var dumped = ""
        dump(value, to: &dumped)
        return ["\(value)", String(reflecting: value), dumped]
    }

    func expectNoLeak(_ texts: [String], secrets: [[UInt8]]) {
        for text in texts {
            for secret in secrets {
                #expect(!text.lowercased().contains(Hex.encode(secret)))
                #expect(!text.lowercased().contains(Hex.encode(secret.prefix(8))))
                #expect(!text.contains(secret.prefix(6).map(String.init).joined(separator: ", ")))
            }
        }
    }

    @Test("states, SKDs, pairwise plaintexts and errors never show chain keys, message keys or seeds")
    func noSecretInText() throws {
        var group = GroupFixture()
        var receiver = try group.installReceiver()
        let envelopes = try group.send(4)
        receiver = try receiver.decrypt(envelopes[3], channel: group.channel, now: group.now).state
        let sending = group.sender.serialized().unprotectedCopy()
        let receiving = receiver.serialized().unprotectedCopy()
        // Sending form: version(1) channel(16) key_id(4) iteration(4) CK(32) seed(32).
        let chainKey = Array(sending[25..<57]), seed = Array(sending[57..<89])
        // Receiving form: CK at 45..<77; the first skipped message key after the 133-byte fixed part and its 4-byte iteration.
        let receiverChain = Array(receiving[45..<77]), skippedKey = Array(receiving[137..<169])
        // The offsets above are right: three skipped keys (0, 1, 2) follow the fixed part.
        #expect(sending.count == 89 && receiving.count == 133 + 3 * 36)
        #expect(Array(receiving[133..<137]) == [0, 0, 0, 0] && Array(receiving[169..<173]) == [0, 0, 0, 1])
        let secrets = [chainKey, seed, receiverChain, skippedKey]
        let skd = group.sender.distribution
        let pairwise = PairwisePlaintext.senderKeyDistribution(skd)
        var texts: [String] = []
        for value in [group.sender, receiver, skd, pairwise, group.sender.serialized(), receiver.serialized()] as [Any] {
            texts += renderings(value)
        }
        for envelope in envelopes {
            do {
                _ = try receiver.decrypt(envelope, channel: group.channel, now: group.now)
            } catch {
                texts += renderings(error)
            }
        }
        expectNoLeak(texts, secrets: secrets)
    }

    @Test("DM key entries never show K")
    func dmKeyRedacted() throws {
        let key = [UInt8](repeating: 0xC7, count: 32)
        let plaintext = SecretBytes(copying: [0x01] + key + [UInt8](repeating: 0, count: 32))
        let decoded = try PairwisePlaintext.decode(plaintext)
        var texts = renderings(decoded)
        if case .dmKey(let entry) = decoded { texts += renderings(entry) }
        expectNoLeak(texts, secrets: [key])
    }
}
