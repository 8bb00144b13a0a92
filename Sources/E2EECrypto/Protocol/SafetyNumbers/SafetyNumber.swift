/// The safety number of a conversation between two users (docs/spec/protocol.md §7), as an
/// app shows and checks it: 12 groups of 5 digits to read aloud or compare by eye
/// (``displayText``, ``digitGroups``), and a scannable form for a QR code that carries both
/// users' fingerprints (``scannableForm``), compared with ``compare(scanned:)``.
///
/// A value is one side's view: ``localUserID`` is the user who computed it. Both sides' digits
/// are the same text; their scannable forms name the two users in opposite order, so a scan
/// matches only when each side's view of the *other* user is what that user computed for
/// themselves.
///
/// Two values are equal (`==`) when their digits are (§7.5: comparison uses the digits only),
/// so Alice's value equals Bob's for the same conversation although each names itself local.
///
/// The static functions are the spec's algorithm on its own (the conformance vectors use them).
public struct SafetyNumber: Sendable, Hashable, CustomStringConvertible {
    /// Length of an identity blob: `0x01 || IK_pub(32) || SIG_pub(32)`.
    public static let identityBlobLength = 65
    /// Digits per user.
    public static let digitsPerUser = 30
    /// Bytes of each user's fingerprint in the scannable form (`h[0..<32]`, §7.6).
    public static let scannableFingerprintLength = 32
    /// The scannable form's version byte (§7.6).
    public static let scannableVersion: UInt8 = 0x01

    /// The user who computed this value (lower-case).
    public let localUserID: String
    /// The other user (lower-case).
    public let remoteUserID: String
    /// The local user's 30 digits.
    public let localDigits: String
    /// The remote user's 30 digits.
    public let remoteDigits: String
    /// `h[0..<32]` of the local user (§7.4, §7.6).
    let localFingerprint: [UInt8]
    /// `h[0..<32]` of the remote user.
    let remoteFingerprint: [UInt8]
    /// `true` when the server could not be asked for the device lists (§7.4 reads them as the
    /// server lists them now), so the number covers the devices this device pinned and trusts
    /// instead: show it as computed offline ("from the devices known on this phone") and
    /// compare again once online before relying on it. Not part of `==`.
    public package(set) var isFromPinnedDevices = false

    /// The safety number between `localUserID` with `localIdentityBlobs` and `remoteUserID`
    /// with `remoteIdentityBlobs` (each user's devices as §7.4 says which).
    /// - Throws: ``ProtocolError/malformed(_:reason:)`` at ``WireLocation/identityBlob`` for a
    ///   blob that is not 65 bytes with version byte `0x01`, or for an empty device list.
    public init(localUserID: String, localIdentityBlobs: [[UInt8]], remoteUserID: String, remoteIdentityBlobs: [[UInt8]]) throws {
        try self.init(localUserID: localUserID, local: .devices(localIdentityBlobs), remoteUserID: remoteUserID, remote: .devices(remoteIdentityBlobs))
    }

    /// What one user's half of the number is computed from.
    public enum UserHalf: Sendable, Hashable {
        /// The identity blobs of the user's devices (§7.4): a user without a user key.
        case devices([[UInt8]])
        /// The user's pinned user key, 32 bytes (§10.18, B.5): no device enters it.
        case userKey([UInt8])
    }

    /// The safety number between `localUserID` and `remoteUserID`, each half from its devices or
    /// its user key (docs/spec/protocol.md §7.4, §10.18).
    /// - Throws: as ``init(localUserID:localIdentityBlobs:remoteUserID:remoteIdentityBlobs:)``;
    ///   ``ProtocolError/malformed(_:reason:)`` at ``WireLocation/certificate`` for a key that is not 32 bytes.
    public init(localUserID: String, local: UserHalf, remoteUserID: String, remote: UserHalf) throws {
        let local = try Self.iteratedHash(userID: localUserID, half: local)
        let remote = try Self.iteratedHash(userID: remoteUserID, half: remote)
        self.localUserID = localUserID.lowercased()
        self.remoteUserID = remoteUserID.lowercased()
        self.localDigits = Self.digits(of: local)
        self.remoteDigits = Self.digits(of: remote)
        self.localFingerprint = Array(local[0..<Self.scannableFingerprintLength])
        self.remoteFingerprint = Array(remote[0..<Self.scannableFingerprintLength])
    }

    /// The 60 digits, the smaller user's 30 first (§7.5): the same text on both sides.
    public var digits: String { min(localDigits, remoteDigits) + max(localDigits, remoteDigits) }

    /// Whether both show the same digits (§7.5), whichever side computed each value and
    /// however it was computed.
    public static func == (lhs: SafetyNumber, rhs: SafetyNumber) -> Bool {
        lhs.digits == rhs.digits
    }

    /// Hashes the digits, as `==` compares them.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(digits)
    }

    /// The 12 groups of 5 digits, in display order.
    public var digitGroups: [String] {
        let all = Array(digits.utf8)
        return stride(from: 0, to: all.count, by: 5).map { String(decoding: all[$0..<($0 + 5)], as: UTF8.self) }
    }

    /// The 12 groups separated by single spaces, as the spec shows them (§7.5).
    public var displayText: String { digitGroups.joined(separator: " ") }

    /// The display text (a safety number is not secret).
    public var description: String { displayText }

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
        digits(of: try iteratedHash(userID: userID, identityBlobs: identityBlobs))
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

    /// One user's 30 digits under the user key `userKey` (docs/spec/protocol.md §10.18, B.5):
    /// `h = SHA-512(0x00 0x01 || K_pub || uid)`, then 5,199 times `h = SHA-512(h || K_pub)`,
    /// formatted as ``fingerprint(userID:identityBlobs:)``.
    /// - Throws: ``ProtocolError/malformed(_:reason:)`` for a key that is not 32 bytes.
    public static func fingerprint(userID: String, userKey: [UInt8]) throws -> String {
        digits(of: try iteratedHash(userID: userID, half: .userKey(userKey)))
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

    /// The safety number of two users from their listed identity blobs, as display text.
    /// - Throws: as ``fingerprint(userID:identityBlobs:)``.
    public static func compute(userA: String, blobsA: [[UInt8]], userB: String, blobsB: [[UInt8]]) throws -> String {
        try combine(fingerprint(userID: userA, identityBlobs: blobsA), fingerprint(userID: userB, identityBlobs: blobsB))
    }

    /// `h` of §7.4 or B.5 (64 bytes) after every iteration.
    static func iteratedHash(userID: String, half: UserHalf) throws -> [UInt8] {
        switch half {
        case .devices(let blobs): return try iteratedHash(userID: userID, identityBlobs: blobs)
        case .userKey(let key):
            guard key.count == 32 else { throw ProtocolError.malformed(.certificate, reason: "a user key is 32 bytes, not \(key.count)") }
            var hash = SHA512.hash([0x00, 0x01] + key + Array(userID.lowercased().utf8))
            for _ in 1..<ProtocolLimits.safetyNumberIterations {
                hash = SHA512.hash(hash + key)
            }
            return hash
        }
    }

    /// `h` of §7.4 (64 bytes) after every iteration.
    static func iteratedHash(userID: String, identityBlobs: [[UInt8]]) throws -> [UInt8] {
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
        return hash
    }

    /// The 30 digits of `h[0..<30]`.
    private static func digits(of hash: [UInt8]) -> String {
        var digits = ""
        for chunk in 0..<6 {
            let value = hash[(chunk * 5)..<(chunk * 5 + 5)].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
            let text = String(value % 100_000)
            digits += String(repeating: "0", count: 5 - text.count) + text
        }
        return digits
    }
}
