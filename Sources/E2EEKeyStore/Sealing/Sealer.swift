import E2EECrypto
import Foundation

/// The one seam through which secrets reach the disk: XChaCha20-Poly1305 under the store key,
/// a random 24-byte nonce per value, and associated data naming the table, column and row, so a
/// sealed value copied into another place fails to open.
///
/// Format: `version(1) || nonce(24) || ciphertext || tag(16)`; version 1 is the only one.
/// Associated data: `"E2EEKeyStore" || version || len32(table) || table || len32(column) ||
/// column || len32(rowID) || rowID` (UTF-8, big-endian lengths).
@_spi(StoreInternals) public struct Sealer: Sendable {
    /// The format version written in the first byte.
    public static let version: UInt8 = 1
    /// Bytes added to every sealed value (version, nonce, tag).
    public static let overhead = 1 + 24 + 16

    private let key: StoreKey
    private let nonces: NonceSource

    /// A sealer for `key`, drawing nonces from `random`.
    public init(key: StoreKey, random: any RandomSource = SystemRandom()) {
        self.key = key
        self.nonces = NonceSource(random: random)
    }

    /// Seals `secret` for the cell (`table`, `column`, `rowID`).
    /// - Throws: `CryptoError` only on an internal length error (never for valid input).
    public func seal(_ secret: SecretBytes, table: String, column: String, rowID: String) throws -> Data {
        let nonce = nonces.next(XChaCha20Poly1305.nonceLength)
        let ad = Self.associatedData(table: table, column: column, rowID: rowID)
        // Sealed straight into the result: no intermediate ciphertext array, no appends.
        let boxStart = 1 + nonce.count
        var out = Data(count: boxStart + secret.count + XChaCha20Poly1305.tagLength)
        try out.withUnsafeMutableBytes { buffer in
            buffer[0] = Self.version
            UnsafeMutableRawBufferPointer(rebasing: buffer[1..<boxStart]).copyBytes(from: nonce)
            try secret.withUnsafeBytes { plaintext in
                try ad.withUnsafeBytes { ad in
                    try XChaCha20Poly1305.seal(plaintext, key: key.bytes, nonce: nonce, authenticating: ad,
                                               into: UnsafeMutableRawBufferPointer(rebasing: buffer[boxStart...]))
                }
            }
        }
        return out
    }

    /// Opens a value sealed for the cell (`table`, `column`, `rowID`).
    /// - Throws: ``KeyStoreError/unsupportedSealedVersion(_:)`` for an unknown first byte,
    ///   ``KeyStoreError/sealedValueRejected(table:column:)`` when the value is truncated,
    ///   altered, sealed under another key, or sealed for another cell.
    public func open(_ sealed: Data, table: String, column: String, rowID: String) throws -> SecretBytes {
        guard let first = sealed.first else { throw KeyStoreError.sealedValueRejected(table: table, column: column) }
        guard first == Self.version else { throw KeyStoreError.unsupportedSealedVersion(first) }
        guard sealed.count >= Self.overhead else { throw KeyStoreError.sealedValueRejected(table: table, column: column) }
        let bytes = [UInt8](sealed)
        let nonce = bytes[1..<25]
        let box = bytes[25...]
        let ad = Self.associatedData(table: table, column: column, rowID: rowID)
        do {
            return try XChaCha20Poly1305.open(box, key: key.bytes, nonce: nonce, authenticating: ad)
        } catch {
            throw KeyStoreError.sealedValueRejected(table: table, column: column)
        }
    }

    /// Opens `sealed` when present.
    /// - Throws: as ``open(_:table:column:rowID:)``.
    public func openIfPresent(_ sealed: Data?, table: String, column: String, rowID: String) throws -> SecretBytes? {
        guard let sealed else { return nil }
        return try open(sealed, table: table, column: column, rowID: rowID)
    }

    /// Seals `secret` when present.
    /// - Throws: as ``seal(_:table:column:rowID:)``.
    public func sealIfPresent(_ secret: SecretBytes?, table: String, column: String, rowID: String) throws -> Data? {
        guard let secret else { return nil }
        return try seal(secret, table: table, column: column, rowID: rowID)
    }

    /// `"E2EEKeyStore" || version`, the start of every associated data.
    private static let associatedDataPrefix = Array("E2EEKeyStore".utf8) + [version]

    static func associatedData(table: String, column: String, rowID: String) -> [UInt8] {
        var ad = associatedDataPrefix
        ad.reserveCapacity(ad.count + 12 + table.utf8.count + column.utf8.count + rowID.utf8.count)
        appendLengthPrefixed(table, to: &ad)
        appendLengthPrefixed(column, to: &ad)
        appendLengthPrefixed(rowID, to: &ad)
        return ad
    }

    /// Appends `u32be(len) || utf8(part)` (no temporary arrays: this runs for every sealed cell).
    private static func appendLengthPrefixed(_ part: String, to ad: inout [UInt8]) {
        let length = UInt32(truncatingIfNeeded: part.utf8.count)
        ad.append(UInt8(length >> 24))
        ad.append(UInt8((length >> 16) & 0xff))
        ad.append(UInt8((length >> 8) & 0xff))
        ad.append(UInt8(length & 0xff))
        ad.append(contentsOf: part.utf8)
    }
}
