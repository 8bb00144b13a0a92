import E2EECrypto
@_spi(StoreInternals) @testable import E2EEKeyStore
import E2EETestSupport
import Foundation
import GRDB
import Testing

/// docs/spec/threats.md T13: someone with the device's files must find no key, token or plaintext in the
/// database, its WAL or its shared-memory file.
@Suite struct AtRestScanTests {
    /// A distinctive secret: random bytes, so a match cannot be a coincidence.
    private static func pattern(_ count: Int) -> [UInt8] { SystemRandom().bytes(count: count) }

    /// The forms a leak could take: raw bytes, hex (both cases), base64 (and URL-safe), and for
    /// long values their first 16 bytes raw.
    private static func forms(of secret: [UInt8]) -> [[UInt8]] {
        var forms: [[UInt8]] = [secret]
        let hex = Hex.encode(secret)
        forms.append(Array(hex.utf8))
        forms.append(Array(hex.uppercased().utf8))
        let base64 = Data(secret).base64EncodedString()
        forms.append(Array(base64.utf8))
        forms.append(Array(base64.replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").utf8))
        if secret.count > 16 { forms.append(Array(secret.prefix(16))) }
        return forms
    }

    private static func files(of dir: TemporaryDirectory) throws -> [(String, [UInt8])] {
        try ["", "-wal", "-shm"].compactMap { suffix in
            let url = URL(fileURLWithPath: dir.storeURL.path + suffix)
            guard FileManager.default.fileExists(atPath: url.path) else { return nil }
            return (suffix.isEmpty ? "db" : suffix, [UInt8](try Data(contentsOf: url)))
        }
    }

    private static func contains(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
        guard !needle.isEmpty, haystack.count >= needle.count else { return false }
        let first = needle[0]
        var index = 0
        while index <= haystack.count - needle.count {
            if haystack[index] == first, haystack[index..<(index + needle.count)].elementsEqual(needle) { return true }
            index += 1
        }
        return false
    }

    @Test func noSecretIsInTheDatabaseWALOrSHM() async throws {
        let dir = try TemporaryDirectory()
        let store = try KeyStore.open(at: dir.storeURL, key: .random())
        var secrets: [String: [UInt8]] = [:]
        func secret(_ name: String, _ count: Int = 32) -> SecretBytes {
            let bytes = Self.pattern(count)
            secrets[name] = bytes
            return SecretBytes(copying: bytes)
        }
        let plaintext = Array("The eagle lands at midnight; bring the 7 blue folders. \(UUID().uuidString)".utf8)
        let ownPlaintext = Array("My own words, sent and kept forever \(UUID().uuidString)".utf8)
        secrets["plaintext"] = plaintext
        secrets["own plaintext"] = ownPlaintext
        let publicMarker = "PUBLIC-ENVELOPE-\(UUID().uuidString)"
        let access = secret("access token", 48), refresh = secret("refresh token", 48)
        let identity = secret("identity private"), signing = secret("signing private", 64)
        let spk = secret("signed prekey private"), opk = secret("one-time prekey private")
        let session = secret("session state", 200), own = secret("own sender key state", 100)
        let receiver = secret("receiver state", 100), skipped = secret("skipped message key"), received = secret("received session state", 200)
        let address = SenderKeyAddress(channelID: "c", senderDeviceID: "d", keyID: 1)

        try await store.storeAccount(AccountRecord(serverURL: "s", userID: "u", deviceID: "d", accessToken: access, refreshToken: refresh, updatedAt: Fixtures.time(1)))
        try await store.storeIdentityKeyPair(IdentityKeyPair(identityPublic: Fixtures.bytes(32, 1), identityPrivate: identity,
                                                             signingPublic: Fixtures.bytes(32, 2), signingPrivate: signing, createdAt: Fixtures.time(1)))
        try await store.rotateSignedPrekey(SignedPrekey(id: 1, publicKey: Fixtures.bytes(32, 3), privateKey: spk, signature: Fixtures.bytes(64, 4),
                                                        isCurrent: true, createdAt: Fixtures.time(1)))
        _ = try await store.addOneTimePrekeys(count: 1, now: Fixtures.time(1)) { _ in OneTimePrekeyMaterial(publicKey: Fixtures.bytes(32, 5), privateKey: opk) }
        let sessionID = try await store.installSession(userID: "u2", deviceID: "d2", state: session, at: Fixtures.time(1))
        try await store.storeNewSenderKey(OwnSenderKey(channelID: "c", keyID: 1, state: own, isCurrent: true, messagesSent: 0, createdAt: Fixtures.time(1)))
        _ = try await store.storeReceiveBatch([ReceiveWrites.decrypted(
            TimelineMessage(messageID: "m1", channelID: "c", senderUserID: "u2", senderDeviceID: "d", createdAt: Fixtures.time(2),
                            contentHash: Fixtures.hash("m1"), state: .decrypted, plaintext: SecretBytes(copying: plaintext)),
            payloadID: "p1",
            senderKey: ReceiverSenderKey(address: address, senderUserID: "u2", state: receiver, createdAt: Fixtures.time(1), updatedAt: Fixtures.time(2)),
            session: SessionUpdate(userID: "u2", deviceID: "d", states: [SessionUpdate.State(sessionID: "s-d", state: received, isCurrent: true)]))])
        try await store.write { [address] db in
            try store.receiverSenderKeyStore.storeSkippedKeys([SkippedSenderKey(address: address, iteration: 9, messageKey: skipped)], at: Fixtures.time(2), db)
        }
        try await store.queueOutgoingMessage(OutgoingCommit(localID: "l1", channelID: "c", content: publicMarker, plaintext: SecretBytes(copying: ownPlaintext),
                                                            sessions: [SessionUpdate(userID: "u2", deviceID: "d2", states: [SessionUpdate.State(sessionID: sessionID, state: session, isCurrent: true)])],
                                                            queuedAt: Fixtures.time(3)))
        try await store.markSending(localID: "l1", at: Fixtures.time(3))
        try await store.markSent(localID: "l1", serverMessageID: "srv-1", createdAt: Fixtures.time(3), senderUserID: "u", senderDeviceID: "d")

        func scan(_ moment: String) throws {
            let files = try Self.files(of: dir)
            // The scan can fail: the public envelope must be found, in one file or another.
            let markerFound = files.contains { Self.contains($0.1, Array(publicMarker.utf8)) }
            #expect(markerFound, "scan found no public marker \(moment)")
            for (name, bytes) in secrets {
                for form in Self.forms(of: bytes) {
                    for (file, contents) in files {
                        let leaked = Self.contains(contents, form)
                        #expect(!leaked, "\(name) readable in \(file) \(moment)")
                    }
                }
            }
        }
        try scan("while open (WAL in use)")
        try await store.checkpoint()
        try scan("after a checkpoint")
        try store.close()
        try scan("after close")
    }

    @Test func deletedRowsLeaveNoBytesBehind() async throws {
        // secure_delete: content of deleted rows is zeroed, not left in free pages. A public
        // marker is used so the test sees exactly what SQLite leaves.
        let dir = try TemporaryDirectory()
        let store = try KeyStore.open(at: dir.storeURL, key: .random())
        let marker = "DELETED-CONTENT-\(UUID().uuidString)"
        _ = try await store.storeReceiveBatch([ReceiveWrites.pending(Fixtures.message("m1", at: 1, state: .pendingKey),
                                                                     content: String(repeating: marker, count: 20))])
        try await store.checkpoint()
        let writtenToFile = Self.contains([UInt8](try Data(contentsOf: dir.storeURL)), Array(marker.utf8))
        #expect(writtenToFile)
        // Decrypting the message removes its queued ciphertext.
        _ = try await store.storeReceiveBatch([ReceiveWrites.decrypted(Fixtures.message("m1", at: 1, plaintext: "opened"))])
        #expect(try await store.pendingCount() == 0)
        try await store.checkpoint()
        try store.close()
        for (file, contents) in try Self.files(of: dir) {
            let left = Self.contains(contents, Array(marker.utf8))
            #expect(!left, "deleted content left in \(file)")
        }
    }
}
