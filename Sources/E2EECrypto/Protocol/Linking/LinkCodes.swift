/// The two 6-digit codes of a link (docs/spec/protocol.md §10.23): N shows ``newDeviceCode``,
/// typed into the primary; the primary shows ``primaryCode``, typed into N.
///
/// `codes = HKDF-SHA256(salt = 32 zero bytes, ikm = nonce_N || nonce_P, info = "e2ee-link-code-v1"
/// || user_id || P.device_id || P.identity_blob || N.device_id || N.identity_blob, 10 bytes)`;
/// `code_N` is the big-endian value of `codes[0..<5]` modulo 10⁶, written as six decimal digits
/// with leading zeros, `code_P` the same over `codes[5..<10]`. Binding both identity blobs means a
/// code typed on the other device confirms the ratchet it came over.
public struct LinkCodes: Sendable, Equatable, CustomStringConvertible {
    /// The HKDF info label.
    public static let infoLabel = Array("e2ee-link-code-v1".utf8)
    /// Digits in a code.
    public static let digits = 6

    /// `code_N`, shown by the new device.
    public let newDeviceCode: String
    /// `code_P`, shown by the primary.
    public let primaryCode: String

    /// Derives both codes; each side passes its own blob and the one its ratchet with the other
    /// is bound to.
    /// - Throws: ``ProtocolError/malformed(_:reason:)`` at ``WireLocation/linkPlaintext`` for a
    ///   nonce that is not 32 bytes, ``ProtocolError/crypto(_:)`` if HKDF fails.
    public static func derive(newDeviceNonce: SecretBytes, primaryNonce: SecretBytes, userID: WireUUID,
                              primaryDevice: WireUUID, primaryIdentity: IdentityBlob,
                              newDevice: WireUUID, newIdentity: IdentityBlob) throws -> LinkCodes {
        for nonce in [newDeviceNonce, primaryNonce] where nonce.count != LinkPlaintext.nonceLength {
            throw ProtocolError.malformed(.linkPlaintext, reason: "nonce of \(nonce.count) bytes")
        }
        let ikm = SecretWireWriter.build(count: 2 * LinkPlaintext.nonceLength) { writer in
            writer.write(newDeviceNonce)
            writer.write(primaryNonce)
        }
        var info = WireWriter()
        info.write(infoLabel)
        info.write(userID)
        info.write(primaryDevice)
        info.write(primaryIdentity.bytes)
        info.write(newDevice)
        info.write(newIdentity.bytes)
        let codes: SecretBytes
        do {
            codes = try HKDF.deriveKey(inputKeyMaterial: ikm, salt: [UInt8](repeating: 0, count: 32), info: info.bytes, outputLength: 10)
        } catch let error as CryptoError {
            throw ProtocolError.crypto(error)
        }
        return codes.withUnsafeBytes { raw in
            LinkCodes(newDeviceCode: code(raw[0..<5]), primaryCode: code(raw[5..<10]))
        }
    }

    /// Whether a typed code equals the expected one: both must be six ASCII digits, compared in
    /// constant time (anything else typed is simply not equal).
    public static func matches(typed: String, expected: String) -> Bool {
        let typedBytes = Array(typed.utf8), expectedBytes = Array(expected.utf8)
        let wellFormed = isCode(typedBytes) && isCode(expectedBytes)
        // Compared whatever the form, so the time does not depend on where the input differs.
        let equal = ConstantTime.equals(padded(typedBytes), padded(expectedBytes))
        return wellFormed && equal
    }

    /// Never shows the codes.
    public var description: String { "LinkCodes(<redacted>)" }

    /// `u40(bytes) mod 10⁶` as six digits.
    private static func code(_ bytes: Slice<UnsafeRawBufferPointer>) -> String {
        let value = bytes.reduce(UInt64(0)) { $0 << 8 | UInt64($1) } % 1_000_000
        let text = String(value)
        return String(repeating: "0", count: digits - text.count) + text
    }

    private static func isCode(_ bytes: [UInt8]) -> Bool {
        bytes.count == digits && bytes.allSatisfy { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }
    }

    /// Exactly six bytes, so the comparison never short-cuts on length.
    private static func padded(_ bytes: [UInt8]) -> [UInt8] {
        (0..<digits).map { $0 < bytes.count ? bytes[$0] : 0 }
    }
}
