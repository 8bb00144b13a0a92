import E2EECrypto

// What the protocol-file runners (TestVectors/protocol/) share: checks that end an attempt
// with a readable mismatch, the "refused with the `failure` the vector names" rule, and the
// keys and bundles the X3DH and Double Ratchet files describe.

/// A check of a protocol replay that did not hold; ``AlgorithmRunner/refusing(_:)`` turns it
/// into ``Attempt/mismatched(_:)``. The detail names the field, never its value.
struct Mismatch: Error {
    /// What differed.
    let detail: String
}

/// Throws ``Mismatch`` with `detail` unless `condition` holds.
func check(_ condition: Bool, _ detail: @autoclosure () -> String) throws {
    guard condition else { throw Mismatch(detail: detail()) }
}

/// A refusal with the `ProtocolError` case the vector names.
struct ExpectedRefusal: Error, CustomStringConvertible {
    /// The case name.
    let failure: String
    var description: String { "refused as \(failure)" }
}

/// `nil` when `body` is refused with the `ProtocolError` case `expected`, else what happened.
func refusalProblem(expected: String, _ body: () throws -> Void) -> String? {
    do {
        try body()
    } catch {
        let name = protocolFailureName(error)
        return name == expected ? nil : "refused as \(name ?? String(describing: type(of: error))), the vector says \(expected)"
    }
    return "accepted, the vector says \(expected)"
}

extension AlgorithmRunner {
    /// The attempt of an invalid protocol case: `body` must be refused with the case's `failure`.
    /// - Throws: ``VectorFieldError`` when the case names no failure.
    func refusal(of vector: VectorCase, _ body: () throws -> Void) throws -> Attempt {
        let expected = try vector.text("failure")
        if let problem = refusalProblem(expected: expected, body) { return .misrefused(problem) }
        return .rejected(ExpectedRefusal(failure: expected))
    }
}

extension VectorCase {
    /// The array field `name`.
    /// - Throws: ``VectorFieldError`` when it is missing or not an array.
    func list(_ name: String) throws -> [JSONValue] {
        guard let value = fields[name]?.array else { throw VectorFieldError(field: name) }
        return value
    }

    /// "tcId N (comment)", for mismatch texts.
    var label: String { "tcId \(tcId) (\(comment))" }
}

extension JSONValue {
    /// The member `name` decoded from hex.
    /// - Throws: ``VectorFieldError`` when it is missing or not hex.
    func hex(_ name: String) throws -> [UInt8] {
        guard let text = self[name]?.string, let bytes = HexText.decode(text) else { throw VectorFieldError(field: name) }
        return bytes
    }

    /// The string member `name`.
    /// - Throws: ``VectorFieldError`` when it is missing or not a string.
    func text(_ name: String) throws -> String {
        guard let value = self[name]?.string else { throw VectorFieldError(field: name) }
        return value
    }
}

/// The keys of the X3DH and Double Ratchet files, rebuilt from their private fields.
enum ProtocolKeys {
    /// The identity whose X25519 scalar and Ed25519 seed are the fields `dh` and `seed`.
    static func identity(_ vector: VectorCase, dh: String, seed: String) throws -> IdentityKeyPair {
        try IdentityKeyPair(dhKey: X25519.PrivateKey(rawRepresentation: SecretBytes(copying: vector.hex(dh))),
                            signingKey: Ed25519.PrivateKey(seed: SecretBytes(copying: vector.hex(seed))))
    }

    /// Bob's signed prekey from its id and scalar, through the stored form (its record with the
    /// zero certificate signed here with his identity: Ed25519 is deterministic, so this is the
    /// published signature).
    static func signedPrekey(_ vector: VectorCase, bob: IdentityKeyPair) throws -> SignedPrekey {
        let id = UInt32(truncatingIfNeeded: try vector.int("signedPrekeyId"))
        let scalar = try vector.hex("signedPrekeyPrivate")
        let key = try X25519.PrivateKey(rawRepresentation: SecretBytes(copying: scalar))
        let published = [SignedPrekeyRecord.version] + WireWriter.bytes(id) + key.publicKey.rawRepresentation
            + [UInt8](repeating: 0, count: DeviceCertificate.length)
        let signature = bob.signingKey.signature(for: SignedPrekeyRecord.signatureLabel + published)
        return try SignedPrekey(serialized: [0x01] + WireWriter.bytes(id) + scalar + signature + [UInt8](repeating: 0, count: 8))
    }

    /// Bob's one-time prekey (unconsumed), or `nil` for id 0.
    static func oneTimePrekey(_ vector: VectorCase) throws -> OneTimePrekey? {
        let id = UInt32(truncatingIfNeeded: try vector.int("oneTimePrekeyId"))
        guard id != 0 else { return nil }
        return try OneTimePrekey(serialized: [0x01] + WireWriter.bytes(id) + vector.hex("oneTimePrekeyPrivate") + [UInt8](repeating: 0, count: 9))
    }

    /// The bundle `GET /keys` would serve for Bob's published values (no one-time prekey when
    /// `oneTimePrekey` is empty).
    static func bundle(identity: [UInt8], signedPrekey: [UInt8], signature: [UInt8], oneTimePrekey: [UInt8]) throws -> PrekeyBundle {
        try PrekeyBundle(deviceID: "00000000-0000-4000-8000-0000000000b0", identityKey: Base64.encode(identity),
                         signedPreKey: Base64.encode(signedPrekey), signedPreKeySignature: Base64.encode(signature),
                         oneTimePreKey: oneTimePrekey.isEmpty ? nil : Base64.encode(oneTimePrekey))
    }
}
