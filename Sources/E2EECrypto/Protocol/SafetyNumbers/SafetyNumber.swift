/// Safety numbers (docs/spec/protocol.md §7): 30 digits per user covering every listed device's identity
/// blob, and the pair shown to both users as 12 groups of 5 digits.
public enum SafetyNumber {
    /// Length of an identity blob: `0x01 || IK_pub(32) || SIG_pub(32)`.
    public static let identityBlobLength = 65
    /// Digits per user.
    public static let digitsPerUser = 30

    /// One user's 30 digits:
    /// `h = SHA-512(0x00 0x00 || B || uid)`, then 5,199 times `h = SHA-512(h || B)`, then each of
    /// the six 5-byte chunks of `h[0..<30]` as a big-endian `u40` mod 100000, as 5 digits.
    ///
    /// - Parameters:
    ///   - userID: the user id; lower-cased and UTF-8 encoded as `uid`.
    ///   - identityBlobs: the identity blobs of the devices listed now, each already checked
    ///     against its pin (see ``fingerprint(userID:listed:pinned:)``); order does not matter.
    /// - Throws: ``ProtocolError/malformed(_:reason:)`` at ``WireLocation/identityBlob`` for a blob
    ///   that is not 65 bytes with version byte `0x01`, or for an empty device list.
    public static func fingerprint(userID: String, identityBlobs: [[UInt8]]) throws -> String {
        guard !identityBlobs.isEmpty else { throw ProtocolError.malformed(.identityBlob, reason: "no devices listed") }
        for blob in identityBlobs {
            guard blob.count == identityBlobLength, blob[0] == 0x01 else {
                throw ProtocolError.malformed(.identityBlob, reason: "identity blob of \(blob.count) bytes or unknown version")
            }
        }
        let concatenated = identityBlobs.sorted { $0.lexicographicallyPrecedes($1) }.flatMap { $0 }
        var hash = SHA512.hash([0x00, 0x00] + concatenated + Array(userID.lowercased().utf8))
        for _ in 1..<ProtocolLimits.safetyNumberIterations {
            hash = SHA512.hash(hash + concatenated)
        }
        var digits = ""
        for chunk in 0..<6 {
            let value = hash[(chunk * 5)..<(chunk * 5 + 5)].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
            let text = String(value % 100_000)
            digits += String(repeating: "0", count: 5 - text.count) + text
        }
        return digits
    }

    /// One user's 30 digits from the devices the server lists now, each checked against its pin.
    /// A listed device whose blob differs from its pin is an identity change, never an input.
    /// - Parameters:
    ///   - userID: the user's id (lower-cased for hashing).
    ///   - listed: identity blob per device from `GET /keys/{user}/bundles`.
    ///   - pinned: identity blob per device pinned for this user.
    /// - Throws: ``ProtocolError/identityMismatch`` when a listed device's blob differs from its
    ///   pin, else as ``fingerprint(userID:identityBlobs:)``.
    public static func fingerprint(userID: String, listed: [WireUUID: [UInt8]], pinned: [WireUUID: [UInt8]]) throws -> String {
        guard IdentityChanges(pinned: pinned, listed: listed).changedDevices.isEmpty else { throw ProtocolError.identityMismatch }
        return try fingerprint(userID: userID, identityBlobs: Array(listed.values))
    }

    /// The safety number of two users: both 30-digit strings, the smaller first, shown as 12
    /// groups of 5 digits separated by single spaces. Symmetric in its arguments.
    /// - Throws: ``ProtocolError/malformed(_:reason:)`` when either is not 30 ASCII digits.
    public static func combine(_ first: String, _ second: String) throws -> String {
        for digits in [first, second] {
            guard digits.utf8.count == digitsPerUser, digits.utf8.allSatisfy({ (0x30...0x39).contains($0) }) else {
                throw ProtocolError.malformed(.identityBlob, reason: "a fingerprint is 30 digits")
            }
        }
        let ordered = Array((first < second ? first + second : second + first).utf8)
        return stride(from: 0, to: ordered.count, by: 5)
            .map { String(decoding: ordered[$0..<($0 + 5)], as: UTF8.self) }
            .joined(separator: " ")
    }

    /// The safety number of two users from their listed identity blobs.
    /// - Throws: as ``fingerprint(userID:identityBlobs:)``.
    public static func compute(userA: String, blobsA: [[UInt8]], userB: String, blobsB: [[UInt8]]) throws -> String {
        try combine(fingerprint(userID: userA, identityBlobs: blobsA), fingerprint(userID: userB, identityBlobs: blobsB))
    }
}
