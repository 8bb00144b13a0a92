import E2EECrypto
@_spi(StoreInternals) @testable import E2EEKeyStore
import Foundation
import GRDB
import Testing

/// The primary file (docs/spec/protocol.md §3 "State", §10.12): sealed under its own key,
/// parsed strictly, replaced atomically, kept out of backups.
@Suite struct PrimaryFileTests {
    static let device = "0a0b0c0d-0000-4000-8000-000000000001"
    static let other = "0a0b0c0d-0000-4000-8000-000000000002"
    static let user = "0a0b0c0d-0000-4000-8000-0000000000aa"

    /// A file with one full and one pruned entry, and a removed device.
    static func contents() throws -> PrimaryFileContents {
        let umk = Ed25519.PrivateKey()
        let identity = E2EECrypto.IdentityKeyPair(using: SystemRandom()).publicIdentity
        let certificate = try DeviceCertificate.issue(by: umk, userID: WireUUID(text: user), deviceID: WireUUID(text: device),
                                                      identity: identity, epoch: 2, notAfter: 2_000_000)
        var contents = PrimaryFileContents(fileID: Fixtures.bytes(16, 9), userKeySeed: umk.seed, epoch: 2, logCount: 0, trustCounter: 7,
                                           mark: 1_900_000, kept: [device], removed: [other], log: [])
        contents.append(CertificateLogEntry(deviceID: other, identityBlob: identity.bytes, certificate: certificate))
        contents.append(CertificateLogEntry(deviceID: other, identityBlob: identity.bytes, certificate: certificate))
        contents.prune(at: 2_000_000 + 86_401)  // both past not_after + 1 day (a device no longer kept)…
        contents.append(CertificateLogEntry(deviceID: device, identityBlob: identity.bytes, certificate: certificate))  // …one full again
        return contents
    }

    @Test("pruning keeps each kept device's newest entry whole, however old (its blob is what a renewal certifies again)")
    func pruneKeepsNewestOfKept() throws {
        var contents = try Self.contents()
        let certificate = try DeviceCertificate(bytes: #require(contents.log[2].body).certificate)
        contents.append(CertificateLogEntry(deviceID: Self.device, identityBlob: try #require(contents.log[2].body).identityBlob,
                                            certificate: certificate))
        contents.prune(at: 3_000_000)
        #expect(contents.log.map { $0.body == nil } == [true, true, true, false], "the kept device's newest entry was pruned")
        contents.kept = []
        contents.prune(at: 3_000_000)
        #expect(contents.log.allSatisfy { $0.body == nil })
    }

    @Test("a file round-trips through its sealed bytes: id, key, epoch, counts, sets, full and pruned entries")
    func roundTrip() throws {
        let dir = try TemporaryDirectory()
        let file = PrimaryFile(storePath: dir.storeURL.path)
        let key = SecretBytes.random(count: 32)
        let contents = try Self.contents()
        #expect(contents.log.map { $0.body == nil } == [true, true, false])
        #expect(contents.logCount == 3)
        try file.save(contents, key: key, random: SystemRandom())
        let loaded = try file.load(key: key)
        #expect(loaded == contents)
        #expect(try loaded.userKey().publicKey == contents.userKey().publicKey)
        // A pruned entry still says the certificate was issued here.
        #expect(loaded.logs(certificate: try #require(contents.log[2].body).certificate))
        #expect(!loaded.logs(certificate: Fixtures.bytes(104, 1)))
    }

    @Test("a damaged file is a typed error: altered, truncated, another key, another version, not a primary file")
    func damagedFile() throws {
        let dir = try TemporaryDirectory()
        let file = PrimaryFile(storePath: dir.storeURL.path)
        let key = SecretBytes.random(count: 32)
        #expect(throws: PrimaryFileError.missing) { try file.load(key: key) }
        try file.save(try Self.contents(), key: key, random: SystemRandom())
        let good = try [UInt8](Data(contentsOf: file.url))

        func load(_ bytes: [UInt8], key: SecretBytes = key) throws -> PrimaryFileContents {
            try Data(bytes).write(to: file.url)
            return try file.load(key: key)
        }
        var flipped = good
        flipped[flipped.count - 20] ^= 1
        #expect(throws: PrimaryFileError.unreadable) { try load(flipped) }
        #expect(throws: PrimaryFileError.unreadable) { try load(Array(good.dropLast())) }
        #expect(throws: PrimaryFileError.unreadable) { try load(good, key: SecretBytes.random(count: 32)) }
        var version = good
        version[PrimaryFileCodec.magic.count] = 3
        #expect(throws: PrimaryFileError.unsupportedVersion(3)) { try load(version) }
        #expect(throws: PrimaryFileError.damaged(reason: "not a primary file")) { try load(Array(good.prefix(20))) }
        #expect(throws: PrimaryFileError.damaged(reason: "not a primary file")) { try load([UInt8](repeating: 0, count: 200)) }
    }

    @Test("a body that opens but breaks the format is damaged: trailing bytes, a huge count, a certificate not matching its entry")
    func strictBody() throws {
        let contents = try Self.contents()
        let body = try PrimaryFileCodec.encodeBody(contents)
        #expect(try PrimaryFileCodec.decodeBody(body) == contents)
        func damaged(_ bytes: [UInt8]) -> Bool {
            do {
                _ = try PrimaryFileCodec.decodeBody(bytes)
                return false
            } catch PrimaryFileError.damaged {
                return true
            } catch {
                return false
            }
        }
        #expect(damaged(body + [0]))
        #expect(damaged(Array(body.dropLast())))
        // The kept count (after the fixed 76 bytes) claims 2³² − 1 ids.
        var huge = body
        huge.replaceSubrange(76..<80, with: [0xff, 0xff, 0xff, 0xff])
        #expect(damaged(huge))
        // The last entry's certificate altered: its digest no longer matches.
        var altered = body
        altered[altered.count - 1] ^= 1
        #expect(damaged(altered))
        // Epoch 0 is never an issuing epoch.
        var epoch = body
        epoch.replaceSubrange(48..<52, with: [0, 0, 0, 0])
        #expect(damaged(epoch))
    }

    @Test("the file is replaced atomically: no temporary file is left, the mode is owner-only, a failed write keeps the old file")
    func atomicWrite() throws {
        let dir = try TemporaryDirectory()
        let file = PrimaryFile(storePath: dir.storeURL.path)
        let key = SecretBytes.random(count: 32)
        var contents = try Self.contents()
        try file.save(contents, key: key, random: SystemRandom())
        contents.epoch = 3
        try file.save(contents, key: key, random: SystemRandom())
        #expect(try file.load(key: key).epoch == 3)
        let names = try FileManager.default.contentsOfDirectory(atPath: file.directory.path).sorted()
        #expect(names == ["CACHEDIR.TAG", PrimaryFile.fileName])
        #expect(StoreFilePermissions.mode(of: file.url.path) == 0o600)
        // A temporary name that cannot be created (a directory in the way): the write fails
        // with a typed error and the file keeps its last contents.
        let blocked = file.directory.appendingPathComponent("blocked")
        try FileManager.default.createDirectory(at: blocked, withIntermediateDirectories: false)
        contents.epoch = 4
        #expect(throws: PrimaryFileError.self) {
            try AtomicFile.write(try PrimaryFileCodec.seal(contents, key: key, nonce: Fixtures.bytes(24, 1)), to: file.url.path, through: blocked.path)
        }
        #expect(try file.load(key: key).epoch == 3)
    }

    @Test("the directory carries a CACHEDIR.TAG with the specification's signature; one that cannot be written is unprotected")
    func backupExclusion() throws {
        let dir = try TemporaryDirectory()
        let file = PrimaryFile(storePath: dir.storeURL.path)
        try file.save(try Self.contents(), key: SecretBytes.random(count: 32), random: SystemRandom())
        #expect(file.isProtected)
        let tag = try String(contentsOf: file.directory.appendingPathComponent("CACHEDIR.TAG"), encoding: .utf8)
        #expect(tag.hasPrefix("Signature: 8a477f597d28d172789f06886806bc55"))
        // Removed: no longer protected, and the next save puts it back.
        try FileManager.default.removeItem(at: file.directory.appendingPathComponent("CACHEDIR.TAG"))
        #expect(!file.isProtected)
        try file.protect()
        #expect(file.isProtected)

        // The directory's place taken by a file: nothing can be created or excluded there.
        let other = try TemporaryDirectory()
        try Data("x".utf8).write(to: URL(fileURLWithPath: other.storeURL.path + ".primary"))
        let blocked = PrimaryFile(storePath: other.storeURL.path)
        #expect(throws: PrimaryFileError.unprotected(path: blocked.directory.path)) {
            try blocked.save(try Self.contents(), key: SecretBytes.random(count: 32), random: SystemRandom())
        }
        // A tag that cannot be written (a directory in its place).
        let third = try TemporaryDirectory()
        let untaggable = PrimaryFile(storePath: third.storeURL.path)
        try FileManager.default.createDirectory(at: untaggable.directory.appendingPathComponent("CACHEDIR.TAG"), withIntermediateDirectories: true)
        #expect(throws: PrimaryFileError.unprotected(path: untaggable.directory.path)) { try untaggable.protect() }
    }

    @Test("the passphrase key source derives the same key for an item, another for another item, never the store key")
    func passphraseKeychain() throws {
        let keychain = PassphrasePrimaryFileKeychain(passphrase: Fixtures.secret("correct horse"), parameters: Fixtures.fastKDF)
        let first = try #require(try keychain.key(item: "e2ee-primary-file/u1", create: true))
        #expect(try keychain.key(item: "e2ee-primary-file/u1", create: false) == first)
        #expect(try keychain.key(item: "e2ee-primary-file/u2", create: false) != first)
        #expect(first.count == 32)
        // The store key from the same passphrase (any salt the store could draw) differs.
        let storeKey = try StoreKey.derive(passphrase: Fixtures.secret("correct horse"), salt: Fixtures.bytes(16, 0), parameters: Fixtures.fastKDF)
        #expect(storeKey.bytes != first)
    }
}
