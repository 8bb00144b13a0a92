@testable import E2EECrypto

/// `sender_key_chain_test.json`: sender key chains from `SenderKeySendingState.generate`
/// (seeds `"e2ee-vectors/sender-key/consecutive"` and `"e2ee-vectors/sender-key/sparse"`),
/// stepped with the chain functions `encrypt` uses.
enum SenderKeyChainVectors {
    static func build() throws -> VectorFileBuilder {
        var file = VectorFileBuilder(fileName: "sender_key_chain_test.json", algorithm: "E2EE-SENDER-KEY", header: [
            "Sender key chains (PROTOCOL.md §4): mk_i = HMAC(CK_i, 0x01), CK_{i+1} = HMAC(CK_i, 0x02),",
            "AES key = HKDF(ZERO32, mk_i, \"e2ee-group-msg-v2\", 32); the nonce is random per message.",
            "A sparse list skips the iterations in between.",
        ])
        let cases: [(String, [UInt32], String)] = [
            ("consecutive", Array(0...16), "iterations 0 to 16"),
            ("sparse", [0, 1, 7, 100, 1999], "skipped iterations: 0, 1, 7, 100, 1999"),
        ]
        for (label, iterations, comment) in cases {
            let random = RecordingRandom(seedLabel: "e2ee-vectors/sender-key/" + label)
            let channel = try random.uuid()
            let state = SenderKeySendingState.generate(channel: channel, retainedKeyIDs: [], using: random)
            try file.add(VectorTest(groupType: "ChainTest", comment: comment, fields: chainFields(state, iterations)))
        }
        return file
    }

    static func chainFields(_ state: SenderKeySendingState, _ iterations: [UInt32]) throws -> JSONObjectBuilder {
        var fields = JSONObjectBuilder()
        fields.setHex("chainKey", bytesOf(state.chainKey))
        var chainKey = state.chainKey
        var position: UInt32 = 0
        var items: [VectorJSON] = []
        for iteration in iterations {
            while position < iteration {
                chainKey = SenderKeyChain.nextChainKey(chainKey)
                position += 1
            }
            let messageKey = SenderKeyChain.messageKey(chainKey: chainKey)
            let key = try SenderKeyChain.aeadKey(messageKey: messageKey)
            chainKey = SenderKeyChain.nextChainKey(chainKey)
            position += 1
            items.append(.object([
                ("iteration", .int(Int64(iteration))), ("messageKey", .string(hexString(bytesOf(messageKey)))),
                ("aesKey", .string(hexString(bytesOf(key)))),
                ("nextChainKey", .string(hexString(bytesOf(chainKey)))),
            ]))
        }
        fields.set("iterations", .array(items))
        return fields
    }
}
