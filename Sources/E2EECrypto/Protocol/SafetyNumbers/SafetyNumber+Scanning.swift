/// The scannable form of a safety number (docs/spec/protocol.md §7.6): what one device shows as
/// a QR code and the other scans.
extension SafetyNumber {
    /// What a scanned code says about this safety number.
    public enum ScanResult: Sendable, Equatable {
        /// Both users' fingerprints are the ones this device computed: verified.
        case match
        /// A well-formed code for other fingerprints: a device list differs (a new or unknown
        /// device on either side) or the code is for another conversation. Not verified.
        case mismatch
        /// A safety number code of a version this build does not read.
        case unsupportedVersion(UInt8)
        /// Not a safety number code at all.
        case notASafetyNumber
    }

    /// Bytes of the scannable form: the version byte and two 32-byte fingerprints.
    public static let scannableLength = 1 + 2 * scannableFingerprintLength

    /// `0x01 || h_local[0..<32] || h_remote[0..<32]`: this side's view, to show as a QR code
    /// (binary mode) for the other user to scan. Not secret.
    public var scannableForm: [UInt8] { [Self.scannableVersion] + localFingerprint + remoteFingerprint }

    /// ``scannableForm`` in standard base64, for QR libraries that take text.
    public var scannableText: String { Base64.encode(scannableForm) }

    /// Compares the code the other user's device shows with this value: it matches when its
    /// first fingerprint is the remote user's and its second the local user's, as this device
    /// computed them. The fingerprints are compared in constant time.
    public func compare(scanned: [UInt8]) -> ScanResult {
        guard let version = scanned.first else { return .notASafetyNumber }
        guard version == Self.scannableVersion else { return .unsupportedVersion(version) }
        guard scanned.count == Self.scannableLength else { return .notASafetyNumber }
        let expected = [Self.scannableVersion] + remoteFingerprint + localFingerprint
        return ConstantTime.equals(scanned, expected) ? .match : .mismatch
    }

    /// As ``compare(scanned:)`` for the text form (``scannableText``).
    public func compare(scannedText: String) -> ScanResult {
        guard let bytes = try? Base64.decode(scannedText.trimmingWhitespace, maxEncodedLength: 4 * ((Self.scannableLength + 2) / 3)) else {
            return .notASafetyNumber
        }
        return compare(scanned: bytes)
    }
}

extension String {
    /// Without leading and trailing spaces, tabs and line breaks (a scanner may add them).
    fileprivate var trimmingWhitespace: String {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" }
        return String(drop(while: isSpace).reversed().drop(while: isSpace).reversed())
    }
}
