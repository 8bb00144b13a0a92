import E2EECrypto

/// The primary file's bytes (docs/spec/protocol.md §3 "State"), big-endian:
///
/// ```
/// file      = magic "E2EE-PRIMARY" (12) || version (1) || nonce (24) || sealed
/// sealed    = XChaCha20-Poly1305(file key, nonce, ad = magic || version, body)
/// body      = file_id (16) || umk_seed (32) || epoch (u32) || log_count (u64) || trust_counter (u64)
///             || mark (i64) || n (u32) || kept ids (16 each) || n (u32) || removed ids (16 each)
///             || n (u32) || entries || [version 2: removal]
/// entry     = kind (1: 1 full, 2 pruned) || device_id (16) || epoch (u32) || not_after (u32)
///             || digest (32) || [full: identity_blob (65) || cert (104)]
/// removal   = 0x00 (none) | stage (1: 1 republish, 2 delete, 3 recerts) || device_id (16)
/// ```
///
/// Version 2 adds the removal in progress (§10.14); a version 1 file (written before removals
/// existed) is read as one with none, and every save writes version 2.
///
/// Parsing is strict: every count is bounded and checked against the bytes left before
/// anything is read, nothing may follow, and a full entry's certificate must parse, match its
/// epoch, `not_after` and digest. The plaintext body is wiped after use.
enum PrimaryFileCodec {
    static let magic = Array("E2EE-PRIMARY".utf8)
    static let version: UInt8 = 2
    /// The first format, without a removal in progress: still read.
    static let versionWithoutRemoval: UInt8 = 1
    /// At most this many kept or removed ids.
    static let maximumDevices = 10_000
    /// At most this many log entries.
    static let maximumEntries = 200_000
    static let headerLength = magic.count + 1 + XChaCha20Poly1305.nonceLength
    private static let fixedBody = 16 + Ed25519.seedLength + 4 + 8 + 8 + 8
    private static let entryFixed = 1 + 16 + 4 + 4 + SHA256.digestLength
    private static let entryBody = IdentityBlob.length + DeviceCertificate.length

    /// Seals `contents` under `key` with `nonce`, in the current format (`version`: an older
    /// one, for the tests that pin it).
    static func seal(_ contents: PrimaryFileContents, key: SecretBytes, nonce: [UInt8], version: UInt8 = version) throws -> [UInt8] {
        var body = try encodeBody(contents, version: version)
        defer { secureWipe(&body) }
        let ad = magic + [version]
        let sealed = try XChaCha20Poly1305.seal(body, key: key, nonce: nonce, authenticating: ad)
        return ad + nonce + sealed
    }

    /// Opens and parses `bytes` under `key`.
    /// - Throws: ``PrimaryFileError/damaged(reason:)``, ``PrimaryFileError/unsupportedVersion(_:)``,
    ///   ``PrimaryFileError/unreadable``.
    static func open(_ bytes: [UInt8], key: SecretBytes) throws -> PrimaryFileContents {
        guard bytes.count >= headerLength + XChaCha20Poly1305.tagLength, Array(bytes.prefix(magic.count)) == magic else {
            throw PrimaryFileError.damaged(reason: "not a primary file")
        }
        let read = bytes[magic.count]
        guard read == version || read == versionWithoutRemoval else { throw PrimaryFileError.unsupportedVersion(read) }
        let nonce = Array(bytes[(magic.count + 1)..<headerLength])
        let body: SecretBytes
        do {
            body = try XChaCha20Poly1305.open(bytes[headerLength...], key: key, nonce: nonce, authenticating: magic + [read])
        } catch {
            throw PrimaryFileError.unreadable
        }
        var plain = body.unprotectedCopy()
        defer { secureWipe(&plain) }
        return try decodeBody(plain, version: read)
    }

    static func encodeBody(_ contents: PrimaryFileContents, version: UInt8 = version) throws -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(fixedBody + 12 + 16 * (contents.kept.count + contents.removed.count) + contents.log.count * (entryFixed + entryBody))
        out += contents.fileID
        contents.userKeySeed.withUnsafeBytes { out += $0 }
        append(contents.epoch, to: &out)
        append(contents.logCount, to: &out)
        append(contents.trustCounter, to: &out)
        append(UInt64(bitPattern: contents.mark), to: &out)
        for ids in [contents.kept, contents.removed] {
            append(UInt32(ids.count), to: &out)
            for id in ids { out += try rawID(id) }
        }
        append(UInt32(contents.log.count), to: &out)
        for entry in contents.log {
            out.append(entry.body == nil ? 2 : 1)
            out += try rawID(entry.deviceID)
            append(entry.epoch, to: &out)
            append(entry.notAfter, to: &out)
            out += entry.digest
            if let body = entry.body { out += body.identityBlob + body.certificate }
        }
        guard version >= Self.version else { return out }
        if let removal = contents.removal {
            out.append(removal.stage.rawValue)
            out += try rawID(removal.deviceID)
        } else {
            out.append(0)
        }
        return out
    }

    static func decodeBody(_ bytes: [UInt8], version: UInt8 = version) throws -> PrimaryFileContents {
        var reader = Reader(bytes: bytes)
        let fileID = try reader.take(16)
        var seed = try reader.take(Ed25519.seedLength)
        let userKeySeed = SecretBytes(consuming: &seed)
        let epoch = try reader.u32()
        guard DeviceCertificate.epochRange.contains(epoch) else { throw PrimaryFileError.damaged(reason: "epoch \(epoch) out of range") }
        let logCount = try reader.u64(), trustCounter = try reader.u64(), mark = Int64(bitPattern: try reader.u64())
        let kept = try reader.ids(maximum: maximumDevices)
        let removed = try reader.ids(maximum: maximumDevices)
        let count = Int(try reader.u32())
        guard count <= maximumEntries, count * entryFixed <= reader.remaining else { throw PrimaryFileError.damaged(reason: "log of \(count) entries") }
        guard UInt64(count) <= logCount else { throw PrimaryFileError.damaged(reason: "log count below its entries") }
        var log: [CertificateLogEntry] = []
        log.reserveCapacity(count)
        for _ in 0..<count { log.append(try entry(&reader)) }
        var removal: PendingRemoval?
        if version >= Self.version {
            let stage = try reader.byte()
            if stage != 0 {
                guard let known = PendingRemoval.Stage(rawValue: stage) else { throw PrimaryFileError.damaged(reason: "removal stage \(stage)") }
                removal = PendingRemoval(deviceID: try reader.id(), stage: known)
            }
        }
        guard reader.remaining == 0 else { throw PrimaryFileError.damaged(reason: "\(reader.remaining) bytes after the log") }
        return PrimaryFileContents(fileID: fileID, userKeySeed: userKeySeed, epoch: epoch, logCount: logCount, trustCounter: trustCounter,
                                   mark: mark, kept: kept, removed: removed, log: log, removal: removal)
    }

    private static func entry(_ reader: inout Reader) throws -> CertificateLogEntry {
        let kind = try reader.byte()
        guard kind == 1 || kind == 2 else { throw PrimaryFileError.damaged(reason: "log entry kind \(kind)") }
        let deviceID = try reader.id()
        let epoch = try reader.u32(), notAfter = try reader.u32()
        let digest = try reader.take(SHA256.digestLength)
        guard kind == 1 else { return CertificateLogEntry(deviceID: deviceID, epoch: epoch, notAfter: notAfter, digest: digest, body: nil) }
        let blob = try reader.take(IdentityBlob.length)
        let bytes = try reader.take(DeviceCertificate.length)
        guard let certificate = try? DeviceCertificate(bytes: bytes), !certificate.isZero, (try? IdentityBlob(bytes: blob)) != nil,
              certificate.epoch == epoch, certificate.notAfter == notAfter, SHA256.hash(bytes) == digest else {
            throw PrimaryFileError.damaged(reason: "a log entry's certificate does not match it")
        }
        return CertificateLogEntry(deviceID: deviceID, epoch: epoch, notAfter: notAfter, digest: digest,
                                   body: .init(identityBlob: blob, certificate: bytes))
    }

    private static func rawID(_ text: String) throws -> [UInt8] {
        guard let id = try? WireUUID(text: text) else { throw PrimaryFileError.damaged(reason: "a device id that is not a UUID") }
        return id.bytes
    }

    private static func append(_ value: UInt32, to out: inout [UInt8]) {
        out += [UInt8(value >> 24), UInt8((value >> 16) & 0xff), UInt8((value >> 8) & 0xff), UInt8(value & 0xff)]
    }

    private static func append(_ value: UInt64, to out: inout [UInt8]) {
        append(UInt32(value >> 32), to: &out)
        append(UInt32(value & 0xffff_ffff), to: &out)
    }

    /// Reads the body; every short read is ``PrimaryFileError/damaged(reason:)``.
    private struct Reader {
        let bytes: [UInt8]
        var offset = 0
        var remaining: Int { bytes.count - offset }

        mutating func take(_ count: Int) throws -> [UInt8] {
            guard count <= remaining else { throw PrimaryFileError.damaged(reason: "truncated at byte \(offset)") }
            defer { offset += count }
            return Array(bytes[offset..<(offset + count)])
        }

        mutating func byte() throws -> UInt8 { try take(1)[0] }
        mutating func u32() throws -> UInt32 { try take(4).reduce(0) { $0 << 8 | UInt32($1) } }
        mutating func u64() throws -> UInt64 { try take(8).reduce(0) { $0 << 8 | UInt64($1) } }
        mutating func id() throws -> String { try WireUUID(bytes: take(16)).description }

        mutating func ids(maximum: Int) throws -> [String] {
            let count = Int(try u32())
            guard count <= maximum, count * 16 <= remaining else { throw PrimaryFileError.damaged(reason: "\(count) device ids") }
            return try (0..<count).map { _ in try id() }
        }
    }
}
