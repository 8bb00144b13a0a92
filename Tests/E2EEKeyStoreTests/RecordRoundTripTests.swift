import E2EECrypto
@_spi(StoreInternals) @testable import E2EEKeyStore
import Foundation
import GRDB
import Testing

/// Every record type written through its store and read back through a freshly opened file.
@Suite struct RecordRoundTripTests {
    /// Writes with one store, closes, reopens, and reads with `read`.
    private func roundTrip<T: Sendable>(write: @escaping @Sendable (KeyStore, Database) throws -> Void,
                                        read: @escaping @Sendable (KeyStore, Database) throws -> T) async throws -> T {
        let dir = try TemporaryDirectory()
        let key = StoreKey.random()
        let store = try KeyStore.open(at: dir.storeURL, key: key)
        try await store.write { db in try write(store, db) }
        try store.close()
        let reopened = try KeyStore.open(at: dir.storeURL, key: key)
        return try await reopened.read { db in try read(reopened, db) }
    }

    @Test func account() async throws {
        let account = AccountRecord(serverURL: "https://chat.example:8000", userID: "u-1", deviceID: "d-1",
                              accessToken: Fixtures.secret("access.jwt"), refreshToken: Fixtures.secret("refresh.jwt"), updatedAt: Fixtures.time(5))
        let loaded = try await roundTrip(write: { s, db in try s.accountStore.storeAccount(account, db) },
                                         read: { s, db in try s.accountStore.loadAccount(db) })
        #expect(loaded == account)
    }

    @Test func identityKeyPair() async throws {
        let keys = IdentityKeyPair(identityPublic: Fixtures.bytes(32, 1), identityPrivate: SecretBytes(copying: Fixtures.bytes(32, 2)),
                                   signingPublic: Fixtures.bytes(32, 3), signingPrivate: SecretBytes(copying: Fixtures.bytes(64, 4)), createdAt: Fixtures.time(1))
        let loaded = try await roundTrip(write: { s, db in try s.identityKeyStore.storeIdentityKeyPair(keys, db) },
                                         read: { s, db in try s.identityKeyStore.loadIdentityKeyPair(db) })
        #expect(loaded == keys)
    }

    @Test("v17: the certificate to publish is stored, replaced and cleared; only 104 bytes fit")
    func publishedCertificate() async throws {
        let first = Fixtures.bytes(104, 7), second = Fixtures.bytes(104, 8)
        let loaded = try await roundTrip(write: { s, db in
            #expect(try s.identityKeyStore.loadPublishedCertificate(db) == nil)
            try s.identityKeyStore.storePublishedCertificate(first, at: Fixtures.time(1), db)
            try s.identityKeyStore.storePublishedCertificate(second, at: Fixtures.time(2), db)
            #expect(throws: DatabaseError.self) { try s.identityKeyStore.storePublishedCertificate(Fixtures.bytes(103, 9), at: Fixtures.time(3), db) }
        }, read: { s, db in try s.identityKeyStore.loadPublishedCertificate(db) })
        #expect(loaded == second)
        let cleared = try await roundTrip(write: { s, db in
            try s.identityKeyStore.storePublishedCertificate(first, at: Fixtures.time(1), db)
            try s.identityKeyStore.storePublishedCertificate(nil, at: Fixtures.time(2), db)
        }, read: { s, db in try s.identityKeyStore.loadPublishedCertificate(db) })
        #expect(cleared == nil)
    }

    @Test func signedPrekeysCurrentAndPrevious() async throws {
        let old = SignedPrekey(id: 1, publicKey: Fixtures.bytes(32, 1), privateKey: SecretBytes(copying: Fixtures.bytes(32, 2)),
                               signature: Fixtures.bytes(64, 3), isCurrent: true, createdAt: Fixtures.time(10))
        let new = SignedPrekey(id: 2, publicKey: Fixtures.bytes(32, 4), privateKey: SecretBytes(copying: Fixtures.bytes(32, 5)),
                               signature: Fixtures.bytes(64, 6), isCurrent: true, createdAt: Fixtures.time(20))
        let loaded = try await roundTrip(write: { s, db in
            try s.signedPrekeyStore.storeCurrentSignedPrekey(old, db)
            try s.signedPrekeyStore.storeCurrentSignedPrekey(new, db)
        }, read: { s, db in (try s.signedPrekeyStore.loadSignedPrekeys(db), try s.signedPrekeyStore.loadCurrentSignedPrekey(db)) })
        var retired = old
        retired.isCurrent = false
        retired.retiredAt = Fixtures.time(20)
        #expect(loaded.0 == [retired, new])
        #expect(loaded.1 == new)
    }

    @Test func oneTimePrekeysInEachState() async throws {
        let loaded = try await roundTrip(write: { s, db in
            let store = s.oneTimePrekeyStore
            for id in try store.reserveIDs(count: 3, db) {
                try store.storeOneTimePrekey(id: id, material: OneTimePrekeyMaterial(publicKey: Fixtures.bytes(32, UInt8(id)),
                                                                                   privateKey: SecretBytes(copying: Fixtures.bytes(32, UInt8(id + 100)))),
                                             at: Fixtures.time(1), db)
            }
            try store.markPublished(ids: [2, 3], db)
            try store.consume(id: 3, at: Fixtures.time(9), db)
        }, read: { s, db in try [1, 2, 3].map { try s.oneTimePrekeyStore.loadOneTimePrekey(id: $0, db) } })
        #expect(loaded.map { $0?.state } == [.pendingUpload, .published, .consumed])
        #expect(loaded[2]?.consumedAt == Fixtures.time(9))
        #expect(loaded[1]?.privateKey == SecretBytes(copying: Fixtures.bytes(32, 102)))
        #expect(loaded[0]?.publicKey == Fixtures.bytes(32, 1))
    }

    @Test func sessionsCurrentAndArchived() async throws {
        let loaded = try await roundTrip(write: { s, db in
            try s.sessionStore.installSession(userID: "u", deviceID: "d", state: Fixtures.secret("first"), id: "s1", at: Fixtures.time(1), db)
            try s.sessionStore.installSession(userID: "u", deviceID: "d", state: Fixtures.secret("second"), id: "s2", at: Fixtures.time(2), db)
            let advanced = SessionUpdate.State(sessionID: "s2", state: Fixtures.secret("second advanced"), isCurrent: true)
            try s.sessionStore.storeUpdate(SessionUpdate(userID: "u", deviceID: "d", states: [advanced]), at: Fixtures.time(3), db)
        }, read: { s, db in try s.sessionStore.loadSessions(userID: "u", deviceID: "d", db) })
        #expect(loaded.map(\.id) == ["s2", "s1"])
        #expect(loaded.map(\.isCurrent) == [true, false])
        #expect(loaded.map { Fixtures.text($0.state) } == ["second advanced", "first"])
        #expect(loaded[0].updatedAt == Fixtures.time(3))
    }

    @Test func acceptedEphemeralKeys() async throws {
        let loaded = try await roundTrip(write: { s, db in
            try s.signedPrekeyStore.storeCurrentSignedPrekey(SignedPrekey(id: 4, publicKey: Fixtures.bytes(32, 1), privateKey: SecretBytes(copying: Fixtures.bytes(32, 2)),
                                                                         signature: Fixtures.bytes(64, 3), isCurrent: true, createdAt: Fixtures.time(1)), db)
            try s.signedPrekeyStore.acceptEphemeralKey(Fixtures.bytes(32, 9), signedPrekeyID: 4, at: Fixtures.time(2), db)
        }, read: { s, db in
            (try s.signedPrekeyStore.isEphemeralKeyAccepted(Fixtures.bytes(32, 9), db), try s.signedPrekeyStore.isEphemeralKeyAccepted(Fixtures.bytes(32, 8), db))
        })
        #expect(loaded == (true, false))
    }

    @Test func ownSenderKeys() async throws {
        let key = OwnSenderKey(channelID: "c", keyID: 11, state: Fixtures.secret("own state"), isCurrent: true, messagesSent: 0, createdAt: Fixtures.time(1))
        let loaded = try await roundTrip(write: { s, db in
            try s.ownSenderKeyStore.storeNewSenderKey(key, db)
            try s.ownSenderKeyStore.storeAdvancedSenderKey(channelID: "c", keyID: 11, state: Fixtures.secret("own state 2"), db)
        }, read: { s, db in try s.ownSenderKeyStore.loadCurrentSenderKey(channelID: "c", db) })
        #expect(loaded?.messagesSent == 1)
        #expect(Fixtures.text(loaded?.state) == "own state 2")
        #expect(loaded?.keyID == 11)
    }

    @Test func ownSenderKeyIDsOfAChannelIncludeRetiredOnes() async throws {
        let ids = try await roundTrip(write: { s, db in
            for (channel, keyID) in [("c", UInt32(11)), ("c", 12), ("d", 13)] {
                try s.ownSenderKeyStore.storeNewSenderKey(OwnSenderKey(channelID: channel, keyID: keyID, state: Fixtures.secret("k\(keyID)"), isCurrent: true,
                                                                       messagesSent: 0, createdAt: Fixtures.time(1)), db)
            }
        }, read: { s, db in try s.ownSenderKeyStore.loadKeyIDs(channelID: "c", db) })
        #expect(ids == [11, 12])
    }

    @Test func receiverSenderKeysWithSkippedKeys() async throws {
        let address = SenderKeyAddress(channelID: "c", senderDeviceID: "dev", keyID: 5)
        let state = ReceiverSenderKey(address: address, senderUserID: "u", state: Fixtures.secret("recv"), createdAt: Fixtures.time(1), updatedAt: Fixtures.time(2))
        let loaded = try await roundTrip(write: { s, db in
            try s.receiverSenderKeyStore.storeReceiverSenderKey(state, db)
            try s.receiverSenderKeyStore.storeSkippedKeys([4, 6].map { SkippedSenderKey(address: address, iteration: $0, messageKey: Fixtures.secret("mk\($0)")) },
                                                          at: Fixtures.time(2), db)
        }, read: { s, db in
            (try s.receiverSenderKeyStore.loadReceiverSenderKey(address, db), try s.receiverSenderKeyStore.skippedIterations(address, db),
             try s.receiverSenderKeyStore.loadSkippedKey(address, iteration: 6, db))
        })
        #expect(loaded.0 == state)
        #expect(loaded.1 == [4, 6])
        #expect(Fixtures.text(loaded.2?.messageKey) == "mk6")
    }

    @Test func remoteIdentitiesAndChanges() async throws {
        let loaded = try await roundTrip(write: { s, db in
            let store = s.remoteIdentityStore
            _ = try store.recordIdentity(userID: "u", deviceID: "d", identityBlob: Fixtures.bytes(65, 1), at: Fixtures.time(1), db)
            _ = try store.recordIdentity(userID: "u", deviceID: "d", identityBlob: Fixtures.bytes(65, 2), at: Fixtures.time(2), db)
            try store.setVerification(.verified, userID: "u", deviceID: "d", db)
        }, read: { s, db in (try s.remoteIdentityStore.loadIdentity(userID: "u", deviceID: "d", db), try s.remoteIdentityStore.loadIdentityChanges(userID: "u", db)) })
        #expect(loaded.0 == RemoteIdentity(userID: "u", deviceID: "d", identityBlob: Fixtures.bytes(65, 1), firstSeenAt: Fixtures.time(1), verification: .verified))
        #expect(loaded.1.map(\.newBlob) == [Fixtures.bytes(65, 2)])
        #expect(loaded.1.first?.accepted == false)
    }

    @Test func timelineInEveryState() async throws {
        let messages = [
            Fixtures.message("m1", at: 1, state: .decrypted, plaintext: "hello"),
            Fixtures.message("m2", at: 2, state: .pendingKey),
            Fixtures.message("m3", at: 3, state: .undecryptable(reason: "bad tag")),
            Fixtures.message("m4", at: 4, state: .unencrypted, plaintext: "plain from v1"),
            Fixtures.message("m5", at: 5, state: .deleted),
        ]
        let loaded = try await roundTrip(write: { s, db in for m in messages { try s.timelineStore.storeMessage(m, db) } },
                                         read: { s, db in try messages.map { try s.timelineStore.loadMessage(id: $0.messageID, db) } })
        #expect(loaded == messages.map { Optional($0) })
    }

    @Test func pendingCiphertexts() async throws {
        let pending = PendingCiphertext(messageID: "m1", channelID: "channel-1", senderDeviceID: "device-b", content: "envelope",
                                        waitingFor: "sender_key:x", receivedAt: Fixtures.time(3))
        let loaded = try await roundTrip(write: { s, db in
            try s.timelineStore.storeMessage(Fixtures.message("m1", at: 1, state: .pendingKey), db)
            try s.pendingStore.storePending(pending, db)
        }, read: { s, db in try s.pendingStore.loadPending(waitingFor: "sender_key:x", db) })
        #expect(loaded == [pending])
    }

    @Test func outboxMessages() async throws {
        let loaded = try await roundTrip(write: { s, db in
            _ = try s.outboxStore.enqueue(localID: "l1", channelID: "c", content: "{\"v\":2}", plaintext: Fixtures.secret("hi"), at: Fixtures.time(1), db)
            _ = try s.outboxStore.enqueue(localID: "l2", channelID: "c", content: "second", plaintext: Fixtures.secret("there"), at: Fixtures.time(2), db)
        }, read: { s, db in try s.outboxStore.loadOutbox(states: [.queued], db) })
        #expect(loaded.map(\.sequence) == [1, 2])
        #expect(loaded.map(\.content) == ["{\"v\":2}", "second"])
        #expect(loaded.map { Fixtures.text($0.plaintext) } == ["hi", "there"])
        #expect(loaded[0].contentHash == Fixtures.hash("{\"v\":2}"))
    }

    @Test func syncCursors() async throws {
        let cursor = SyncCursor(channelID: "c", newest: TimelineCursor(createdAt: Fixtures.time(9), messageID: "n"),
                                oldest: TimelineCursor(createdAt: Fixtures.time(1), messageID: "o"), historyComplete: true, updatedAt: Fixtures.time(10))
        let empty = SyncCursor(channelID: "e", newest: nil, oldest: nil, historyComplete: false, updatedAt: Fixtures.time(1))
        let loaded = try await roundTrip(write: { s, db in
            try s.syncCursorStore.storeCursor(cursor, db)
            try s.syncCursorStore.storeCursor(empty, db)
        }, read: { s, db in (try s.syncCursorStore.loadCursor(channelID: "c", db), try s.syncCursorStore.loadCursor(channelID: "e", db)) })
        #expect(loaded.0 == cursor)
        #expect(loaded.1 == empty)
    }
}
