import E2EECrypto
@_spi(StoreInternals) @testable import E2EEKeyStore
import E2EETestSupport
import Foundation
import Testing

/// The primary file's format, version 1 (docs/spec/protocol.md §10.12), pinned by a committed
/// file: the code must keep opening it, and sealing the same contents under the same key and
/// nonce must give the same bytes. A change of format is a new version, never an edit of this one.
@Suite struct PrimaryFileGoldenTests {
    static let fixture = RepositoryPaths.root.appendingPathComponent("Tests/E2EEKeyStoreTests/Fixtures/primary-file-v1.bin")
    static let key = SecretBytes(copying: [UInt8](repeating: 0x42, count: 32))
    static let nonce = [UInt8](repeating: 0x24, count: 24)

    /// Fixed contents: a user key from a fixed seed, one full entry, one pruned entry.
    static func contents() throws -> PrimaryFileContents {
        let umk = try Ed25519.PrivateKey(seed: SecretBytes(copying: [UInt8](repeating: 7, count: 32)))
        let identity = try IdentityBlob(bytes: [0x01] + [UInt8](repeating: 9, count: 32) + umk.publicKey.rawRepresentation)
        let user = try WireUUID(text: "00000000-0000-4000-8000-0000000000aa")
        let device = "00000000-0000-4000-8000-000000000001"
        let first = try DeviceCertificate.issue(by: umk, userID: user, deviceID: WireUUID(text: device), identity: identity, epoch: 1,
                                                notAfter: 1_800_000_000)
        let second = try DeviceCertificate.issue(by: umk, userID: user, deviceID: WireUUID(text: device), identity: identity, epoch: 1,
                                                 notAfter: 1_802_000_000)
        var contents = PrimaryFileContents(fileID: [UInt8](repeating: 0x11, count: 16), userKeySeed: umk.seed, epoch: 1, logCount: 0,
                                           trustCounter: 3, mark: 1_801_000_000, kept: [device], removed: ["00000000-0000-4000-8000-000000000002"],
                                           log: [])
        contents.append(CertificateLogEntry(deviceID: device, identityBlob: identity.bytes, certificate: first))
        contents.append(CertificateLogEntry(deviceID: device, identityBlob: identity.bytes, certificate: second))
        contents.prune(at: 1_801_000_000)
        return contents
    }

    @Test("the committed version-1 file opens to its contents, and sealing them again gives its bytes")
    func goldenFile() throws {
        let contents = try Self.contents()
        let sealed = try PrimaryFileCodec.seal(contents, key: Self.key, nonce: Self.nonce, version: PrimaryFileCodec.versionWithoutRemoval)
        let golden = try [UInt8](Data(contentsOf: Self.fixture))
        #expect(sealed == golden)
        let opened = try PrimaryFileCodec.open(golden, key: Self.key)
        #expect(opened == contents)
        #expect(opened.log.map { $0.body == nil } == [true, false])
        #expect(opened.removal == nil, "a version-1 file has no removal in progress")
    }

    @Test("version 2 carries a removal in progress; a version-1 file read and saved again becomes version 2 with the same contents")
    func versionTwo() throws {
        var contents = try Self.contents()
        let golden = try [UInt8](Data(contentsOf: Self.fixture))
        let upgraded = try PrimaryFileCodec.seal(try PrimaryFileCodec.open(golden, key: Self.key), key: Self.key, nonce: Self.nonce)
        #expect(upgraded[PrimaryFileCodec.magic.count] == 2)
        #expect(try PrimaryFileCodec.open(upgraded, key: Self.key) == contents)
        contents.removal = PendingRemoval(deviceID: "00000000-0000-4000-8000-000000000003", stage: .deleteDevice)
        let sealed = try PrimaryFileCodec.seal(contents, key: Self.key, nonce: Self.nonce)
        #expect(sealed.count == upgraded.count + 16, "one stage byte, then the device's 16")
        #expect(try PrimaryFileCodec.open(sealed, key: Self.key) == contents)
        var body = try PrimaryFileCodec.encodeBody(contents)
        body[body.count - 17] = 9
        #expect(throws: PrimaryFileError.damaged(reason: "removal stage 9")) { try PrimaryFileCodec.decodeBody(body) }
    }
}
