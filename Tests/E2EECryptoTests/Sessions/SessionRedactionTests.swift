@testable import E2EECrypto
import E2EETestSupport
import Testing

@Suite("Sessions: secrets never appear in descriptions or errors")
struct SessionRedactionTests {
    /// Every way a value is commonly turned into text.
    static func renderings(_ value: Any) -> [String] {
        var dumped = ""
        dump(value, to: &dumped)
        return [String(describing: value), String(reflecting: value), "\(value)", dumped]
    }

    /// Hex of each secret, plus its first 8 bytes (a partial leak counts).
    static func secretHexes(_ secrets: [SecretBytes]) -> [String] {
        secrets.flatMap { secret -> [String] in
            let bytes = secret.unprotectedCopy()
            return [Hex.encode(bytes), Hex.encode(bytes.prefix(8))]
        }
    }

    @Test("no secret's hex shows up in any description, dump or error text of the session types")
    func noSecretsInText() throws {
        var pair = try EstablishedPair()
        let skippedSource = try pair.alice.send("skipped", to: pair.bob)
        let message = try pair.alice.send("secret plaintext", to: pair.bob)
        let pending = try pair.bob.open(message, from: pair.alice)
        let record = pending.effects.record
        let state = record.current
        let opk = pair.bob.oneTimePrekeys[1]
        let spk = pair.bob.signedPrekeys[0]
        let identity = pair.bob.identity

        var secrets: [SecretBytes] = [
            identity.dhKey.rawRepresentation, identity.signingKey.seed, spk.keyPair.rawRepresentation,
            opk.keyPair.rawRepresentation, state.rootKey, state.sendingRatchet.rawRepresentation, pending.plaintext,
        ]
        secrets += [state.sendingChain, state.receivingChain].compactMap { $0 }
        secrets += state.skipped.entries.map(\.messageKey)
        #expect(state.skipped.count == 1)
        let hexes = Self.secretHexes(secrets)

        var texts: [String] = []
        let encryption = try record.encrypt([9, 9, 9])
        let initiated = try X3DH.initiate(localIdentity: pair.alice.identity, bundle: pair.bob.bundle(), pinnedIdentity: nil)
        let context = pair.bob.context(listed: nil, from: pair.alice.deviceID)
        for value: Any in [identity, spk, opk, state, record, pending, pending.effects, encryption, initiated, pair.bob.random, context] {
            texts += Self.renderings(value)
        }
        // Errors raised while processing hostile input around these secrets.
        var forged = skippedSource
        forged[forged.count - 1] ^= 1
        for attempt in [forged, Array(message.prefix(60)), [7] + message.dropFirst()] {
            do {
                _ = try pair.bob.open(attempt, from: pair.alice)
                Issue.record("forged input decrypted")
            } catch {
                texts += Self.renderings(error) + [error.localizedDescription]
            }
        }
        for text in texts {
            for hex in hexes { #expect(!text.contains(hex), "secret hex leaked into: \(text.prefix(120))") }
        }
        #expect(texts.contains { $0.contains("redacted") })
    }
}
