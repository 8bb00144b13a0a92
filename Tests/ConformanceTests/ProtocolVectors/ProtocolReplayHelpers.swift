import E2EEConformance
import E2EECrypto
import E2EEProtocolVectorGenerator
import E2EETestSupport
import Foundation
import Testing

/// Tallies of one replayed file for its summary line.
struct ReplayTally {
    var valid = 0
    var invalid = 0
    var events = 0
}

extension VectorCase {
    func list(_ name: String) throws -> [JSONValue] {
        guard let value = fields[name]?.array else { throw VectorFieldError(field: name) }
        return value
    }

    var failure: String? { fields["failure"]?.string }

    var label: String { "tcId \(tcId) (\(comment))" }
}

extension JSONValue {
    func hex(_ name: String) throws -> [UInt8] {
        guard let text = self[name]?.string else { throw VectorFieldError(field: name) }
        return try Hex.decode(text)
    }

    func text(_ name: String) throws -> String {
        guard let value = self[name]?.string else { throw VectorFieldError(field: name) }
        return value
    }
}

enum ProtocolReplay {
    /// Loads `TestVectors/protocol/<name>`.
    static func file(_ name: String) throws -> VectorFile {
        let url = ProtocolVectorGenerationTests.folder.appendingPathComponent(name)
        return try #require(try VectorFile.load(url), "\(name) is not in the Wycheproof layout")
    }

    /// Runs `body`, which must be refused with the `ProtocolError` case `expected`.
    static func expectRefusal(_ expected: String?, _ what: String, _ body: () throws -> Void) {
        guard let expected else {
            Issue.record("\(what): an invalid vector without failure")
            return
        }
        do {
            try body()
            Issue.record("\(what): accepted, the vector says \(expected)")
        } catch {
            let name = protocolFailureName(error)
            #expect(name == expected, "\(what): refused as \(name ?? "\(error)"), the vector says \(expected)")
        }
    }

    static func identity(_ test: VectorCase, dh: String, seed: String) throws -> IdentityKeyPair {
        try IdentityKeyPair(dhKey: X25519.PrivateKey(rawRepresentation: SecretBytes(copying: test.hex(dh))),
                            signingKey: Ed25519.PrivateKey(seed: SecretBytes(copying: test.hex(seed))))
    }

    static func bigEndian(_ value: UInt32) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: value >> (24 - 8 * $0)) } }

    /// Bob's signed prekey from its id and scalar, through the stored form (signed here with his
    /// identity: Ed25519 is deterministic, so this is the published signature).
    static func signedPrekey(_ test: VectorCase, bob: IdentityKeyPair) throws -> SignedPrekey {
        let id = UInt32(try test.int("signedPrekeyId"))
        let key = try X25519.PrivateKey(rawRepresentation: SecretBytes(copying: test.hex("signedPrekeyPrivate")))
        let published = [PublishedSignedPrekey.version] + bigEndian(id) + key.publicKey.rawRepresentation
        let signature = bob.signingKey.signature(for: PublishedSignedPrekey.signatureLabel + published)
        return try SignedPrekey(serialized: [0x01] + bigEndian(id) + test.hex("signedPrekeyPrivate") + signature + [UInt8](repeating: 0, count: 8))
    }

    /// Bob's one-time prekey (unconsumed), or `nil` for id 0.
    static func oneTimePrekey(_ test: VectorCase) throws -> OneTimePrekey? {
        let id = UInt32(try test.int("oneTimePrekeyId"))
        guard id != 0 else { return nil }
        return try OneTimePrekey(serialized: [0x01] + bigEndian(id) + test.hex("oneTimePrekeyPrivate") + [UInt8](repeating: 0, count: 9))
    }

    static func bundle(identity: [UInt8], signedPrekey: [UInt8], signature: [UInt8], oneTimePrekey: [UInt8]) throws -> PrekeyBundle {
        try PrekeyBundle(deviceID: "00000000-0000-4000-8000-0000000000b0", identityKey: Base64.encode(identity),
                         signedPreKey: Base64.encode(signedPrekey), signedPreKeySignature: Base64.encode(signature),
                         oneTimePreKey: oneTimePrekey.isEmpty ? nil : Base64.encode(oneTimePrekey))
    }

    static func summary(_ file: VectorFile, _ tally: ReplayTally) {
        let events = tally.events > 0 ? ", \(tally.events) events" : ""
        print("protocol vectors: \(file.algorithm) \(file.name): \(tally.valid) valid, \(tally.invalid) invalid refused\(events)")
    }
}
