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

    /// A group message of `device-b` decrypted under the state `state`.
    private func groupMessage(_ id: String, state: String, identity: RemoteIdentityClaim? = nil, consumedOneTimePrekeyID: UInt32? = nil) -> ReceiveWrite {
        ReceiveWrites.decrypted(
            Fixtures.message(id, at: 100, plaintext: "plaintext of \(id)"),
            senderKey: ReceiverSenderKey(address: address, senderUserID: "user-b", state: Fixtures.secret(state), createdAt: Fixtures.time(1), updatedAt: Fixtures.time(2)),
            consumedOneTimePrekeyID: consumedOneTimePrekeyID, identity: identity)
    }

    private func receiverState(_ store: KeyStore) async throws -> ReceiverSenderKey? {
        try await store.read { [address] db in try store.receiverSenderKeyStore.loadReceiverSenderKey(address, db) }
    }

    @Test func receiveWriteAppliesEveryEffect() async throws {
        let store = try await storeWithReceiverState()
        #expect(try await store.storeReceiveBatch([ReceiveWrites.pending(Fixtures.message("m1", at: 100, state: .pendingKey))]) == [.stored])
        #expect(try await store.pendingCount() == 1)
        #expect(try await store.storeReceiveBatch([groupMessage("m1", state: "iter 3")]) == [.stored])
        #expect(Fixtures.text(try await receiverState(store)?.state) == "iter 3")
        #expect(try await store.pendingCount() == 0)
        let message = try #require(try await store.message(id: "m1"))
        #expect(message.state == .decrypted)
        #expect(Fixtures.text(message.plaintext) == "plaintext of m1")
    }

    @Test func whenAnyPartFails_thenNothingIsStored() async throws {
        let store = try await storeWithReceiverState()
        _ = try await store.recordIdentity(RemoteIdentityClaim(userID: "user-b", deviceID: "device-b", identityBlob: Fixtures.bytes(65, 1)))
        _ = try await store.storeReceiveBatch([ReceiveWrites.pending(Fixtures.message("m1", at: 100, state: .pendingKey))])
        // The identity differs from its pin: the whole write must roll back.
        let changed = RemoteIdentityClaim(userID: "user-b", deviceID: "device-b", identityBlob: Fixtures.bytes(65, 2))
        await #expect(throws: KeyStoreError.self) {
            try await store.storeReceiveBatch([groupMessage("m1", state: "iter 3", identity: changed)])
        }
        let changes = try await store.read { db in try store.remoteIdentityStore.loadIdentityChanges(userID: "user-b", db) }
        #expect(Fixtures.text(try await receiverState(store)?.state) == "iter 0")
        #expect(changes.isEmpty)
        #expect(try await store.message(id: "m1")?.state == .pendingKey)
        #expect(try await store.pendingCount() == 1)
    }

    @Test func whenOneDecryptionOfABatchFails_thenNoneIsStored() async throws {
        let store = try await storeWithReceiverState()
        // The second message names a one-time prekey this device never made.
        let bad = groupMessage("m2", state: "iter 2", consumedOneTimePrekeyID: 9)
        await #expect(throws: KeyStoreError.missingRecord(.oneTimePrekey, id: "9")) {
            try await store.storeReceiveBatch([groupMessage("m1", state: "iter 1"), bad])
        }
        #expect(try await store.message(id: "m1") == nil)
        #expect(try await store.messageCount(channelID: "channel-1") == 0)
        #expect(Fixtures.text(try await receiverState(store)?.state) == "iter 0")
    }

    @Test func batchEndsInTheLastStateOfEachAddress() async throws {
        let store = try await storeWithReceiverState()
        // Three messages from one sender in one batch, and a first message under a new key.
        let newAddress = SenderKeyAddress(channelID: "channel-1", senderDeviceID: "device-b", keyID: 2)
        var underNewKey = groupMessage("m9", state: "unused")
        underNewKey.senderKey = ReceiverSenderKey(address: newAddress, senderUserID: "user-b", state: Fixtures.secret("key 2 at 1"),
                                                  createdAt: Fixtures.time(3), updatedAt: Fixtures.time(3))
        #expect(try await store.storeReceiveBatch([
            groupMessage("m3", state: "iter 4"), groupMessage("m2", state: "iter 4b"), groupMessage("m5", state: "iter 6"), underNewKey,
        ]) == [.stored, .stored, .stored, .stored])
        let state = try await receiverState(store)
        #expect(Fixtures.text(state?.state) == "iter 6")
        #expect(state?.createdAt == Fixtures.time(1))
        let newState = try await store.receiverSenderKey(newAddress)
        #expect(Fixtures.text(newState?.state) == "key 2 at 1")
        #expect(try await store.messageCount(channelID: "channel-1", state: .decrypted) == 4)
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
        func prekeyMessage(_ id: String, session: String) -> ReceiveWrite {
            ReceiveWrites.decrypted(
                Fixtures.message(id, at: 5, plaintext: "hi"),
                session: SessionUpdate(userID: "user-b", deviceID: "device-b",
                                            states: [SessionUpdate.State(sessionID: session, state: Fixtures.secret("session of \(id)"), isCurrent: true)]),
                consumedOneTimePrekeyID: 1, acceptedEphemeralKey: AcceptedEphemeralKey(publicKey: Fixtures.bytes(32, 77), signedPrekeyID: 7),
                identity: claim)
        }
        // The first device of a user met here is pinned quietly (no "new device" for a first contact).
        #expect(try await store.storeReceiveBatch([prekeyMessage("m1", session: "s1")]) == [.stored])
        #expect(try await store.oneTimePrekeyCount(state: .consumed) == 1)
        #expect(try await store.oneTimePrekeyCount(state: .published) == 1)
        #expect(try await store.recordIdentity(claim) == .matches)
        let session = try await store.currentSession(userID: "user-b", deviceID: "device-b")
        #expect(Fixtures.text(session?.state) == "session of m1")

        // Replaying the same EK_A is refused and changes nothing.
        await #expect(throws: KeyStoreError.self) { try await store.storeReceiveBatch([prekeyMessage("m2", session: "s2")]) }
        #expect(try await store.message(id: "m2") == nil)
        #expect(try await store.sessions(userID: "user-b", deviceID: "device-b", limit: 40).map(\.id) == ["s1"])

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
        _ = try await store.storeReceiveBatch([ReceiveWrites.decrypted(Fixtures.message("m1", at: 1, plaintext: "already decrypted"))])
        #expect(try await store.storeReceiveBatch([ReceiveWrites.pending(Fixtures.message("m1", at: 1, state: .pendingKey))]) == [.unchanged])
        #expect(try await store.message(id: "m1")?.state == .decrypted)
        #expect(try await store.pendingCount() == 0)
    }

    @Test func readableMessagesAreNeverDowngradedAndDeletedOnesStayDeleted() async throws {
        let store = try await storeWithReceiverState()
        _ = try await store.storeReceiveBatch([ReceiveWrites.decrypted(Fixtures.message("m1", at: 1, plaintext: "readable"))])
        #expect(try await store.storeReceiveBatch([ReceiveWrites.outcome(Fixtures.message("m1", at: 1, state: .undecryptable(reason: "duplicate, key gone")))])
                == [.unchanged])
        #expect(Fixtures.text(try await store.message(id: "m1")?.plaintext) == "readable")

        _ = try await store.storeReceiveBatch([ReceiveWrites.outcome(Fixtures.message("m2", at: 2, state: .undecryptable(reason: "bad tag")))])
        #expect(try await store.storeReceiveBatch([ReceiveWrites.outcome(Fixtures.message("m2", at: 2, state: .unencrypted, plaintext: "v1 text"))])
                == [.stored])
        #expect(try await store.message(id: "m2")?.state == .unencrypted)

        // A decryption of a message its sender deleted meanwhile still advances the key state,
        // but the row stays deleted with no plaintext.
        _ = try await store.storeReceiveBatch([ReceiveWrites.decrypted(Fixtures.message("m3", at: 3, plaintext: "soon gone"), payloadID: "p3")])
        #expect(try await store.storeReceiveBatch([ReceiveWrites.tombstone("t3", deleting: "p3", at: 4)]) == [.storedErasing("m3")])
        #expect(try await store.storeReceiveBatch([groupMessage("m3", state: "iter 9")]) == [.stored])
        let m3 = try await store.message(id: "m3")
        #expect(m3?.state == .deleted)
        #expect(m3?.plaintext == nil)
        #expect(Fixtures.text(try await receiverState(store)?.state) == "iter 9")
    }

    @Test func erasingWipesThePlaintextAndPendingRow() async throws {
        let store = try KeyStore.inMemory()
        _ = try await store.storeReceiveBatch([
            ReceiveWrites.decrypted(Fixtures.message("m1", at: 1, plaintext: "secret words"), payloadID: "p1"),
            ReceiveWrites.pending(Fixtures.message("m2", at: 2, state: .pendingKey)),
        ])
        #expect(try await store.storeReceiveBatch([
            ReceiveWrites.tombstone("t1", deleting: "p1", at: 3), ReceiveWrites.tombstone("t2", deleting: "p2", at: 4),
        ]) == [.storedErasing("m1"), .stored])
        let m1 = try await store.message(id: "m1")
        #expect(m1?.state == .deleted)
        #expect(m1?.plaintext == nil)
        // The pending message is erased when it opens: its tombstone is already here.
        #expect(try await store.storeReceiveBatch([ReceiveWrites.decrypted(Fixtures.message("m2", at: 2, plaintext: "late words"), payloadID: "p2")])
                == [.storedErased])
        let m2 = try await store.message(id: "m2")
        #expect(m2?.state == .deleted)
        #expect(m2?.plaintext == nil)
        #expect(try await store.pendingCount() == 0)
        // A tombstone naming nothing stored erases nothing.
        #expect(try await store.storeReceiveBatch([ReceiveWrites.tombstone("t9", deleting: "p-unknown", at: 5)]) == [.stored])
        #expect(try await store.messageCount(channelID: "channel-1") == 2)
    }
}
