import E2EECrypto
import E2EEKeyStore

/// Turns the key store's prekey records into the protocol's types. The store keeps a prekey's
/// X25519 private key as its 32-byte scalar; the protocol types are rebuilt through their
/// documented stored forms (`0x01 || id || scalar || …`), written straight into wiped memory.
enum StoredKeyConversion {
    /// `SignedPrekey` stored form: `0x01 || id(u32) || scalar(32) || signature(64) || createdAt(i64, unix s)`.
    static func signedPrekey(_ record: E2EEKeyStore.SignedPrekey) throws -> E2EECrypto.SignedPrekey {
        guard record.privateKey.count == X25519.keyLength, record.signature.count == Ed25519.signatureLength else {
            throw ProtocolError.malformed(.keyState, reason: "stored signed prekey of unexpected size")
        }
        let bytes = SecretBytes(count: 1 + 4 + 32 + 64 + 8) { buffer in
            var writer = RawWriter(buffer)
            writer.write(0x01)
            writer.write(UInt64(record.id), width: 4)
            record.privateKey.withUnsafeBytes { writer.write($0) }
            record.signature.withUnsafeBytes { writer.write($0) }
            writer.write(UInt64(bitPattern: record.createdAt.microseconds / 1_000_000), width: 8)
        }
        return try E2EECrypto.SignedPrekey(serialized: bytes)
    }

    /// `OneTimePrekey` stored form: `0x01 || id(u32) || scalar(32) || consumed(u8) || consumedAt(i64, unix s)`.
    static func oneTimePrekey(_ record: E2EEKeyStore.OneTimePrekey) throws -> E2EECrypto.OneTimePrekey {
        guard record.privateKey.count == X25519.keyLength else {
            throw ProtocolError.malformed(.keyState, reason: "stored one-time prekey of unexpected size")
        }
        let consumedAt = record.consumedAt.map { $0.microseconds / 1_000_000 }
        let bytes = SecretBytes(count: 1 + 4 + 32 + 1 + 8) { buffer in
            var writer = RawWriter(buffer)
            writer.write(0x01)
            writer.write(UInt64(record.id), width: 4)
            record.privateKey.withUnsafeBytes { writer.write($0) }
            writer.write(consumedAt == nil ? 0 : 1)
            writer.write(UInt64(bitPattern: consumedAt ?? 0), width: 8)
        }
        return try E2EECrypto.OneTimePrekey(serialized: bytes)
    }
}

/// Big-endian writes into a fixed buffer (the caller sized it exactly).
private struct RawWriter {
    let buffer: UnsafeMutableRawBufferPointer
    var offset = 0

    init(_ buffer: UnsafeMutableRawBufferPointer) { self.buffer = buffer }

    mutating func write(_ byte: UInt8) {
        buffer[offset] = byte
        offset += 1
    }

    mutating func write(_ value: UInt64, width: Int) {
        for index in (0..<width).reversed() { write(UInt8(truncatingIfNeeded: value >> UInt64(index * 8))) }
    }

    mutating func write(_ bytes: UnsafeRawBufferPointer) {
        for byte in bytes { write(byte) }
    }
}
