import E2EECrypto
@_spi(StoreInternals) @testable import E2EEKeyStore
import Foundation
import GRDB
import Testing

@Suite struct AtomicOperationTests {
    let address = SenderKeyAddress(channelID: "channel-1", senderDeviceID: "device-b", keyID: 1)

    private func storeWithReceiverState() async throws -> KeyStore {
        let store = try KeyStore.inMemory()
        try await store.write { [address] db in
            try store.receiverSenderKeyStore.storeReceiverSenderKey(
                ReceiverSenderKey(address: address, senderUserID: "user-b", state: Fixtures.secret("iter 0"), createdAt: Fixtures.time(1), updatedAt: Fixtures.time(1)), db)
            try store.receiverSenderKeyStore.storeSkippedKeys([SkippedSenderKey(address: address, iteration: 2, messageKey: Fixtures.secret("mk2"))], at: Fixtures.time(1), db)
        }
        return store
    }

    private func groupCommit(_ id: String, state: String, used: UInt32?, skipped: [UInt32], identity: RemoteIdentityClaim? = nil) -> DecryptionCommit {
        DecryptionCommit(
            message: Fixtures.message(id, at: 100, plaintext: "plaintext of \(id)"),
            senderKey: SenderKeyAdvance(
                state: ReceiverSenderKey(address: address, senderUserID: "user-b", state: Fixtures.secret(state), createdAt: Fixtures.time(1), updatedAt: Fixtures.time(2)),
                usedSkippedIteration: used, newSkippedKeys: skipped.map { SkippedSenderKey(address: address, iteration: $0, messageKey: Fixtures.secret("mk\($0)")) }),
            identity: identity, processedAt: Fixtures.time(2))
    }

    @Test func storeDecryptionAppliesEveryEffect() async throws {
        let store = try await storeWithReceiverState()
        #expect(try await store.storePendingMessage(Fixtures.message("m1", at: 100, state: .pendingKey), content: "env", waitingFor: "k", receivedAt: Fixtures.time(1)))
        #expect(try await store.pendingCount() == 1)
        try await store.storeDecryption(groupCommit("m1", state: "iter 3", used: 2, skipped: [4, 5]))
        let (state, skipped) = try await store.read { [address] db in
            (try store.receiverSenderKeyStore.loadReceiverSenderKey(address, db), try store.receiverSenderKeyStore.skippedIterations(address, db))
        }
        #expect(Fixtures.text(state?.state) == "iter 3")
        #expect(skipped == [4, 5])
        #expect(try await store.pendingCount() == 0)
        let message = try #require(try await store.message(id: "m1"))
        #expect(message.state == .decrypted)
        #expect(Fixtures.text(message.plaintext) == "plaintext of m1")
    }

    @Test func whenAnyPartFails_thenNothingIsStored() async throws {
        let store = try await storeWithReceiverState()
        _ = try await store.recordIdentity(RemoteIdentityClaim(userID: "user-b", deviceID: "device-b", identityBlob: Fixtures.bytes(65, 1)))
        try await store.storePendingMessage(Fixtures.message("m1", at: 100, state: .pendingKey), content: "env", waitingFor: "k", receivedAt: Fixtures.time(1))
        // The identity differs from its pin: the whole commit must roll back.
        let changed = RemoteIdentityClaim(userID: "user-b", deviceID: "device-b", identityBlob: Fixtures.bytes(65, 2))
        await #expect(throws: KeyStoreError.self) {
            try await store.storeDecryption(groupCommit("m1", state: "iter 3", used: 2, skipped: [4], identity: changed))
        }
        let (state, skipped, changes) = try await store.read { [address] db in
            (try store.receiverSenderKeyStore.loadReceiverSenderKey(address, db), try store.receiverSenderKeyStore.skippedIterations(address, db),
             try store.remoteIdentityStore.loadIdentityChanges(userID: "user-b", db))
        }
        #expect(Fixtures.text(state?.state) == "iter 0")
        #expect(skipped == [2])
        #expect(changes.isEmpty)
        #expect(try await store.message(id: "m1")?.state == .pendingKey)
        #expect(try await store.pendingCount() == 1)
    }

    @Test func whenOneDecryptionOfABatchFails_thenNoneIsStored() async throws {
        let store = try await storeWithReceiverState()
        var bad = groupCommit("m2", state: "iter 2", used: nil, skipped: [])
        bad.session = .update(sessionID: "no-such-session", state: Fixtures.secret("x"))
        await #expect(throws: KeyStoreError.missingRecord(.session, id: "no-such-session")) {
            try await store.storeDecryptions([groupCommit("m1", state: "iter 1", used: nil, skipped: []), bad])
        }
        #expect(try await store.message(id: "m1") == nil)
        #expect(try await store.messageCount(channelID: "channel-1") == 0)
    }

    @Test func batchEndsInTheLastStateWithEverySkippedKeyChange() async throws {
        let store = try await storeWithReceiverState()
        // Three messages from one sender in one batch: 3 skips to 4, 2 uses a kept key, 5 follows.
        try await store.storeDecryptions([
            groupCommit("m3", state: "iter 4", used: nil, skipped: [1, 3]),
            groupCommit("m2", state: "iter 4b", used: 2, skipped: []),
            groupCommit("m5", state: "iter 6", used: 3, skipped: [7]),
        ])
        let (state, skipped) = try await store.read { [address] db in
            (try store.receiverSenderKeyStore.loadReceiverSenderKey(address, db), try store.receiverSenderKeyStore.skippedIterations(address, db))
        }
        #expect(Fixtures.text(state?.state) == "iter 6")
        #expect(state?.createdAt == Fixtures.time(1))
        #expect(skipped == [1, 7])
        #expect(try await store.messageCount(channelID: "channel-1", state: .decrypted) == 3)
    }

    @Test func batchCreatesANewSenderKeyStateBeforeItsSkippedKeys() async throws {
        let store = try KeyStore.inMemory()
        try await store.storeDecryptions([groupCommit("m1", state: "first", used: nil, skipped: [0]), groupCommit("m2", state: "second", used: 0, skipped: [9])])
        let skipped = try await store.read { [address] db in try store.receiverSenderKeyStore.skippedIterations(address, db) }
        #expect(skipped == [9])
    }

    @Test func whenSkippedKeysExceedTheLimit_thenTheOldestAreDeleted() async throws {
        let store = try await storeWithReceiverState()
        let (removed, left) = try await store.write { [address] db in
            let receivers = store.receiverSenderKeyStore
            try receivers.storeSkippedKeys((3...9).map { SkippedSenderKey(address: address, iteration: $0, messageKey: Fixtures.secret("k\($0)")) }, at: Fixtures.time(2), db)
            let removed = try receivers.trimSkippedKeys(address, keeping: 3, db)
            return (removed, try receivers.skippedIterations(address, db))
        }
        #expect(removed == 5)
        #expect(left == [7, 8, 9])
    }

    @Test func prekeyMessageConsumesPrekeyAcceptsEphemeralInstallsSessionAndPins() async throws {
        let store = try KeyStore.inMemory()
        try await store.rotateSignedPrekey(SignedPrekey(id: 7, publicKey: Fixtures.bytes(32, 1), privateKey: SecretBytes(copying: Fixtures.bytes(32, 2)),
                                                        signature: Fixtures.bytes(64, 3), isCurrent: true, createdAt: Fixtures.time(1)))
        let prekeys = try await store.addOneTimePrekeys(count: 2, now: Fixtures.time(1)) { id in
            OneTimePrekeyMaterial(publicKey: Fixtures.bytes(32, UInt8(id)), privateKey: SecretBytes(copying: Fixtures.bytes(32, UInt8(id + 50))))
        }
        #expect(prekeys.map(\.id) == [1, 2])
        try await store.markOneTimePrekeysPublished(ids: [1, 2])
        let claim = RemoteIdentityClaim(userID: "user-b", deviceID: "device-b", identityBlob: Fixtures.bytes(65, 9))
        let commit = DecryptionCommit(message: Fixtures.message("m1", at: 5, plaintext: "hi"),
                                      session: .install(userID: "user-b", deviceID: "device-b", state: Fixtures.secret("session 1")),
                                      consumedOneTimePrekeyID: 1, acceptedEphemeralKey: AcceptedEphemeralKey(publicKey: Fixtures.bytes(32, 77), signedPrekeyID: 7),
                                      identity: claim, processedAt: Fixtures.time(6))
        try await store.storeDecryption(commit)
        #expect(try await store.oneTimePrekeyCount(state: .consumed) == 1)
        #expect(try await store.oneTimePrekeyCount(state: .published) == 1)
        #expect(try await store.recordIdentity(claim) == .matches)
        let session = try await store.read { db in try store.sessionStore.loadCurrentSession(userID: "user-b", deviceID: "device-b", db) }
        #expect(Fixtures.text(session?.state) == "session 1")

        // Replaying the same EK_A is refused and changes nothing.
        var replay = commit
        replay.message = Fixtures.message("m2", at: 6, plaintext: "again")
        await #expect(throws: KeyStoreError.self) { try await store.storeDecryption(replay) }
        #expect(try await store.message(id: "m2") == nil)
        #expect(try await store.read { db in try store.sessionStore.loadSessions(userID: "user-b", deviceID: "device-b", db).count } == 1)

        // Wiping the signed prekey drops its accepted ephemeral keys (the replay window ends).
        try await store.rotateSignedPrekey(SignedPrekey(id: 8, publicKey: Fixtures.bytes(32, 4), privateKey: SecretBytes(copying: Fixtures.bytes(32, 5)),
                                                        signature: Fixtures.bytes(64, 6), isCurrent: true, createdAt: Fixtures.time(9)))
        let accepted = try await store.write { db in
            try store.signedPrekeyStore.removeSignedPrekey(id: 7, db)
            return try store.signedPrekeyStore.isEphemeralKeyAccepted(Fixtures.bytes(32, 77), db)
        }
        #expect(!accepted)
    }

    @Test func oneTimePrekeyIDsAreNeverReused() async throws {
        let store = try KeyStore.inMemory()
        let make: @Sendable (UInt32) throws -> OneTimePrekeyMaterial = { id in
            OneTimePrekeyMaterial(publicKey: Fixtures.bytes(32, UInt8(truncatingIfNeeded: id)), privateKey: SecretBytes(copying: Fixtures.bytes(32, 1)))
        }
        let first = try await store.addOneTimePrekeys(count: 3, now: Fixtures.time(1), generate: make)
        try await store.consumeOneTimePrekey(id: 1, at: Fixtures.time(2))
        let wiped = try await store.wipeExpiredKeys(consumedBefore: Fixtures.time(3), senderKeysIdleSince: Fixtures.time(0))
        #expect(wiped.oneTimePrekeys == 1)
        struct Boom: Error {}
        await #expect(throws: Boom.self) { _ = try await store.addOneTimePrekeys(count: 2, now: Fixtures.time(4)) { _ in throw Boom() } }
        let second = try await store.addOneTimePrekeys(count: 2, now: Fixtures.time(5), generate: make)
        #expect(first.map(\.id) == [1, 2, 3])
        #expect(second.map(\.id) == [4, 5])
        await #expect(throws: KeyStoreError.missingRecord(.oneTimePrekey, id: "1")) { try await store.consumeOneTimePrekey(id: 1, at: Fixtures.time(6)) }
    }

    @Test func consumingTwiceKeepsTheFirstTimeForTheGraceWindow() async throws {
        let store = try KeyStore.inMemory()
        _ = try await store.addOneTimePrekeys(count: 1, now: Fixtures.time(1)) { _ in
            OneTimePrekeyMaterial(publicKey: Fixtures.bytes(32, 1), privateKey: SecretBytes(copying: Fixtures.bytes(32, 2)))
        }
        try await store.consumeOneTimePrekey(id: 1, at: Fixtures.time(10))
        try await store.consumeOneTimePrekey(id: 1, at: Fixtures.time(20))
        let prekey = try await store.read { db in try store.oneTimePrekeyStore.loadOneTimePrekey(id: 1, db) }
        #expect(prekey?.consumedAt == Fixtures.time(10))
    }

    @Test func identityChangeKeepsThePinUntilAccepted() async throws {
        let store = try KeyStore.inMemory()
        let first = RemoteIdentityClaim(userID: "u", deviceID: "d", identityBlob: Fixtures.bytes(65, 1))
        let second = RemoteIdentityClaim(userID: "u", deviceID: "d", identityBlob: Fixtures.bytes(65, 2))
        #expect(try await store.recordIdentity(first) == .pinned)
        #expect(try await store.recordIdentity(first) == .matches)
        guard case .changed(let change) = try await store.recordIdentity(second) else {
            Issue.record("a different blob must be a change")
            return
        }
        #expect(change.previousBlob == first.identityBlob)
        // Seen again before the user answers: the same change, not a second row.
        #expect(try await store.recordIdentity(second) == .changeAlreadyRecorded(change))
        #expect(try await store.read { db in try store.remoteIdentityStore.loadIdentityChanges(userID: "u", db) }.count == 1)
        try await store.write { db in try store.remoteIdentityStore.acceptIdentityChange(id: change.id, at: Fixtures.time(3), db) }
        #expect(try await store.recordIdentity(second) == .matches)
    }

    @Test func duplicatePendingMessageIsIgnored() async throws {
        let store = try KeyStore.inMemory()
        try await store.storeMessageOutcome(Fixtures.message("m1", at: 1, plaintext: "already decrypted"))
        #expect(try await !store.storePendingMessage(Fixtures.message("m1", at: 1, state: .pendingKey), content: "e", waitingFor: "k", receivedAt: Fixtures.time(1)))
        #expect(try await store.message(id: "m1")?.state == .decrypted)
        #expect(try await store.pendingCount() == 0)
    }

    @Test func readableMessagesAreNeverDowngradedAndDeletedOnesStayDeleted() async throws {
        let store = try await storeWithReceiverState()
        try await store.storeMessageOutcome(Fixtures.message("m1", at: 1, plaintext: "readable"))
        #expect(try await !store.storeMessageOutcome(Fixtures.message("m1", at: 1, state: .undecryptable(reason: "duplicate, key gone"))))
        #expect(Fixtures.text(try await store.message(id: "m1")?.plaintext) == "readable")

        try await store.storeMessageOutcome(Fixtures.message("m2", at: 2, state: .undecryptable(reason: "bad tag")))
        #expect(try await store.storeMessageOutcome(Fixtures.message("m2", at: 2, state: .unencrypted, plaintext: "v1 text")))
        #expect(try await store.message(id: "m2")?.state == .unencrypted)

        // A decryption of a message deleted meanwhile still advances the key state, but the
        // row stays deleted with no plaintext.
        try await store.storeMessageOutcome(Fixtures.message("m3", at: 3, plaintext: "soon gone"))
        try await store.markMessageDeleted(messageID: "m3")
        try await store.storeDecryption(groupCommit("m3", state: "iter 9", used: nil, skipped: []))
        let m3 = try await store.message(id: "m3")
        #expect(m3?.state == .deleted)
        #expect(m3?.plaintext == nil)
        let state = try await store.read { [address] db in try store.receiverSenderKeyStore.loadReceiverSenderKey(address, db) }
        #expect(Fixtures.text(state?.state) == "iter 9")
    }

    @Test func deletingWipesThePlaintextAndPendingRow() async throws {
        let store = try KeyStore.inMemory()
        try await store.storeMessageOutcome(Fixtures.message("m1", at: 1, plaintext: "secret words"))
        try await store.storePendingMessage(Fixtures.message("m2", at: 2, state: .pendingKey), content: "e", waitingFor: "k", receivedAt: Fixtures.time(1))
        try await store.markMessageDeleted(messageID: "m1")
        try await store.markMessageDeleted(messageID: "m2")
        let m1 = try await store.message(id: "m1")
        #expect(m1?.state == .deleted)
        #expect(m1?.plaintext == nil)
        #expect(try await store.pendingCount() == 0)
        await #expect(throws: KeyStoreError.missingRecord(.timelineMessage, id: "zz")) { try await store.markMessageDeleted(messageID: "zz") }
    }
}
